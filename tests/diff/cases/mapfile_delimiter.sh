printf "x,y,,z" | { mapfile -t -d , parts; declare -p parts; }
