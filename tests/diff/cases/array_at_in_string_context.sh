a=(x y z)
v="${a[@]}"
echo "$v"
case "${a[@]}" in "x y z") echo joined ;; esac
