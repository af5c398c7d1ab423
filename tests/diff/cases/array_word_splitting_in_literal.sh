s="a b  c"
a=($s)
echo ${#a[@]}
b=("$s")
echo ${#b[@]}
IFS=:
c=(x:y:z)
echo ${#c[@]}
