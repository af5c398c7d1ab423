a=()
set -- "${a[@]}"
echo $#
set -- "${a[@]}" x
echo $#
set -- "${a[*]}"
echo $#
