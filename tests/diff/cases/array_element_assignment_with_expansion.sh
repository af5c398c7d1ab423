i=2
a[$i]=two
a[i+1]=three
a[$(echo 0)]=zero
declare -p a
