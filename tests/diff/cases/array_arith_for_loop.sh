a=(3 1 4 1 5)
sum=0
for (( i=0; i<${#a[@]}; i++ )); do (( sum += a[i] )); done
echo $sum
