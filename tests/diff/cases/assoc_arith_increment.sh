declare -A c
(( c[x]++ ))
(( c[x]++ ))
(( c[y] += 5 ))
echo "${c[x]} ${c[y]}"
