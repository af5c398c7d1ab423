a=(1 2 3)
i=1
unset "a[$i]"
echo "${!a[@]}"
unset a[0]
echo "${!a[@]}"
