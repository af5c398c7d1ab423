declare -A m
for k in a b c d e f g h ab ba zz 1 2 10; do m[$k]=v$k; done
echo "${!m[@]}"
