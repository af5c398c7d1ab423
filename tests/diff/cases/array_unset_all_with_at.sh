a=(1 2 3)
unset "a[@]"
echo "${#a[@]}" "${a-gone}"
