a=(1 2)
unset a
echo "${#a[@]}" "[${a[@]}]" "${a-gone}"
