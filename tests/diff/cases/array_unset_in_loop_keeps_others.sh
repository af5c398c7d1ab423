a=(1 2 3 4 5 6)
for i in "${!a[@]}"; do (( a[i] % 2 == 0 )) && unset "a[$i]"; done
echo "${a[@]}" "${!a[@]}"
