x=$(printf "a\n\n\n"); echo "[$x]"
