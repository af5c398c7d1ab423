set -u
a=(1)
echo "${a[0]}"
echo "${a[3]}"
echo after
