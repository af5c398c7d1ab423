a1=(1 2)
declare -A b1=([k]=v)
declare -p a1 b1
declare -a | grep a1
