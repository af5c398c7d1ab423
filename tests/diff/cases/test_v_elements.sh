a=(1 "" 3)
for i in 0 1 2 3 -1; do [ -v "a[$i]" ] && echo "$i set" || echo "$i unset"; done
