readarray -t r <<< $'p\nq'
declare -p r
