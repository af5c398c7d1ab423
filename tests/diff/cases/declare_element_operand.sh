declare "a[2]=two" a[0]=zero
declare -p a
