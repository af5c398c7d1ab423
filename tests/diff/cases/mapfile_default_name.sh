printf "1\n2\n" | { mapfile; echo ${#MAPFILE[@]}; }
