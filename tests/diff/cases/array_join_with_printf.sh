a=(x y z)
printf -v joined "%s," "${a[@]}"
echo "${joined%,}"
