LC_ALL=C.UTF-8
a=(héllo)
echo ${#a[0]}
