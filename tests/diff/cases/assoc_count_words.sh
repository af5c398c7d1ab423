declare -A count
for w in a b a c b a; do count[$w]=$(( ${count[$w]:-0} + 1 )); done
for k in a b c; do echo "$k ${count[$k]}"; done
