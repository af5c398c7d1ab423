a=(1)
: ${a[3]:=three}
declare -p a
