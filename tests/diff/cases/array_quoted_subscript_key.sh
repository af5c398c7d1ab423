declare -A m
m["key one"]=1
m['key two']=2
echo "${m["key one"]}" "${m['key two']}"
