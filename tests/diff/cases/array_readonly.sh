readonly -a r=(1 2)
r[0]=x
echo not reached
