declare -A m
m[""]=x
echo not reached
