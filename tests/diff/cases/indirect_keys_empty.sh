declare -A m
printf "<%s>" "${!m[@]}"; echo "|"
