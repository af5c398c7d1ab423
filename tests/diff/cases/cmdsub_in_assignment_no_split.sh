x=$(echo "a   b"); echo "$x"
