a=("a b" c)
set -- ${a[@]}
echo $#
set -- "${a[@]}"
echo $#
