mapfile -t found < <(printf "%s\n" one two)
echo "${found[1]}" ${#found[@]}
