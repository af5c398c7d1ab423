i=0
: $((i++)) | cat
echo "i=$i"
x=
: ${x:=set} | cat
echo "x=[$x]"
