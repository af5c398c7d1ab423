declare -A m=([a]=1)
[[ -v m[a] ]] && echo has-a
[[ -v m[b] ]] || echo no-b
test -v "m[a]" && echo test-a
echo ${#m[@]}
