a=(first second)
echo "$a" "${a}"
a=replaced
declare -p a
