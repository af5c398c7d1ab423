declare -a e
declare -A f
declare -p e f
e+=(1)
declare -p e
