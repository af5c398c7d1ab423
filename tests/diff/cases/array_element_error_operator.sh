a=(1)
echo "${a[0]?}"
echo "${a[5]?no such element}"
echo not reached
