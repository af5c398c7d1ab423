declare -A m
m[1+1]=a
m[2]=b
echo "${m[1+1]}" "${m[2]}" ${#m[@]}
