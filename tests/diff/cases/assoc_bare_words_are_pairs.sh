declare -A m=(k1 v1 k2 v2)
echo "${m[k1]} ${m[k2]}" ${#m[@]}
