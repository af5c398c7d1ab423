declare -A m=([k]=v)
echo "${m[@]@K}"
a=(x y)
echo "${a[@]@K}"
