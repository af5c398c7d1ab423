a=(1 2)
a+=(3 [9]=4 5)
declare -p a
