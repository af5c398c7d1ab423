declare -A m=([a]=1 [b]=2 [c]=3 [d]=4)
unset "m[b]"
m[e]=5
m[b]=6
echo "${!m[@]}"
