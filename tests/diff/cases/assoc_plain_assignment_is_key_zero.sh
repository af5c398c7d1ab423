declare -A m=([a]=1)
m=x
declare -p m
echo "$m"
