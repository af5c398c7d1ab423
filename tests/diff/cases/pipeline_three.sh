printf "3\n1\n2\n" | sort | head -2
