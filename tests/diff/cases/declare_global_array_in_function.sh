f() { declare -g -a g=(x y); }
f
echo "${g[@]}"
