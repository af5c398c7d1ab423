declare -A ages=([alice]=30 [bob]=25)
for name in "${!ages[@]}"; do echo "$name is ${ages[$name]}"; done | sort
