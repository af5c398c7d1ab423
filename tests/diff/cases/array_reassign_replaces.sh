a=(1 2 3)
a=(x)
declare -p a
