n=3; echo "n+1=$((n+1))"
