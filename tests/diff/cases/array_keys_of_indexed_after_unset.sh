a=(a b c d e)
unset "a[0]" "a[2]"
for i in "${!a[@]}"; do echo "$i:${a[i]}"; done
