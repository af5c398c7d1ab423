touch a1 a2 b1
a=(a*)
echo ${#a[@]} "${a[@]}"
b=("a*")
echo "${b[@]}"
