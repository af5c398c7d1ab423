a=(a b c)
IFS=,
echo "${a[*]}"
x="${a[*]}"
echo "$x"
IFS=
echo "${a[*]}"
