readonly r=(1 2)
declare -p r
