stack=()
stack+=(a)
stack+=(b)
stack+=(c)
top=${stack[-1]}
unset "stack[-1]"
echo "$top" "${stack[@]}" ${#stack[@]}
