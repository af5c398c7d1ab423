declare -A m=([a]=apple)
echo "${m[a]^^}" "${m[a]:1:3}" "${m[a]/p/P}" "${#m[a]}"
