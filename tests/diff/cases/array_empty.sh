a=()
echo ${#a[@]}
printf "<%s>" "${a[@]}"; echo "|"
declare -p a
