declare -A m
m[a b]=1
m["c d"]=2
echo "${m[a b]}" "${m[c d]}" ${#m[@]}
