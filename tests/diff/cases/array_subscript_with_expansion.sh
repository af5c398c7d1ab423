a=(p q r)
k=1
echo "${a[$k]}" "${a[${k}+1]}" "${a[$(echo 0)]}"
