declare -A m
for k in red green blue cyan; do m[$k]=${#k}; done
declare -p m
