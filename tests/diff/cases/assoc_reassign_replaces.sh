declare -A m=([a]=1)
m=([b]=2)
declare -p m
