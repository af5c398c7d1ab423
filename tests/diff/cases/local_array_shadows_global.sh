a=(global)
f() { local a=(local one); echo "${a[@]}"; }
f
echo "${a[@]}"
