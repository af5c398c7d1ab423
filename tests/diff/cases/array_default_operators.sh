a=()
echo "${a[@]:-empty}" "${a[0]-unset}"
b=(1 2)
echo "${b[@]:-empty}" "${b[1]:+set}" "${b[5]:-none}"
