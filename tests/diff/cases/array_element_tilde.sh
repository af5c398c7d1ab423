HOME=/home/u
a=(~ ~/x "~")
echo "${a[@]}"
