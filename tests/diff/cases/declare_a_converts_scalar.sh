x=value
declare -a x
declare -p x
