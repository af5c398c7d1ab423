declare -A m
m[one]=1
m[two]=2
echo "${m[one]}" "${m[two]}" "[${m[three]}]" ${#m[@]}
