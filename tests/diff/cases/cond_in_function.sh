is_num() { [[ $1 =~ ^[0-9]+$ ]]; }
for v in 1 x 23; do is_num $v && echo "$v num" || echo "$v not"; done
