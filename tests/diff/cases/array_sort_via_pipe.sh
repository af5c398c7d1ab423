a=(pear apple fig)
sorted=($(printf "%s\n" "${a[@]}" | sort))
echo "${sorted[@]}"
