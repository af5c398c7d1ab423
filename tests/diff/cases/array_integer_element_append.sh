declare -ai n=(5)
n[0]+=3
echo ${n[0]}
