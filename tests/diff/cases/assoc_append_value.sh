declare -A m=([a]=x)
m[a]+=y
m+=([b]=z)
declare -p m
