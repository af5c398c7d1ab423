a=(1 2)
a+=(3 "4 5")
a+=()
printf "<%s>" "${a[@]}"; echo
echo ${#a[@]}
