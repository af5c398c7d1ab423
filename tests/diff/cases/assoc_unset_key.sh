declare -A m=([a]=1 [b]=2)
unset "m[a]"
declare -p m
unset m
echo "${#m[@]}"
