set --
a=("$@")
echo ${#a[@]}
a=("$@" x)
echo ${#a[@]}
