a=($(printf "%s\n" p q r))
echo ${#a[@]} "${a[1]}"
b=("$(printf "x\ny")")
echo ${#b[@]}
