declare -A m
k="some key"
m[$k]=value
echo "${m[$k]}" "${m["some key"]}"
