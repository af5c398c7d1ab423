a=([3]=c [1]=a b)
declare -p a
echo "${!a[@]}"
