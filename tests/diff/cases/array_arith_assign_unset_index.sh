unset z
(( z[3] = 7 ))
declare -p z
