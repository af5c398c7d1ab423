out=()
for i in 1 2 3; do out+=("item $i"); done
printf "[%s]\n" "${out[@]}"
