a=(1 "two words" "")
echo "${a[@]@Q}"
