x=hello
x[2]=world
declare -p x
echo "$x" "${x[@]}"
