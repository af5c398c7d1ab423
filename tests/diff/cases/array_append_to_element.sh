a=(x y)
a[1]+=z
a[5]+=new
declare -p a
