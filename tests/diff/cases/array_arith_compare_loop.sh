nums=(5 3 9 1)
max=${nums[0]}
for n in "${nums[@]}"; do (( n > max )) && max=$n; done
echo $max
