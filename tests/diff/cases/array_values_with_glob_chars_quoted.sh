touch zz1 zz2
a=("zz*" zz?)
echo "${a[0]}" ${#a[@]}
printf "<%s>" ${a[0]}; echo
