declare -A m=([x]=1 [y]=2 [z]=3)
echo "${!m[@]}"
echo "${m[@]}"
