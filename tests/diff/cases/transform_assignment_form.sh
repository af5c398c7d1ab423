x="a b"
echo "${x@A}"
declare -i n=5
echo "${n@A}"
a=(1 2)
echo "${a[@]@A}"
