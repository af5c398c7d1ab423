readonly base=1
base[1]=2
echo not reached
