declare -A m
for i in $(seq 1 3000); do m[k$i]=$i; done
echo ${#m[@]}
printf "%s\n" "${!m[@]}" | head -20
printf "%s\n" "${!m[@]}" | tail -5
