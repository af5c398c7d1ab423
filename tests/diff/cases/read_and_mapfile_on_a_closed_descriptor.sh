# -u naming a closed descriptor: an error naming it, status 1, nothing read.
exec 7<&-
mapfile -u 7 lines; echo "mapfile=$? ${#lines[@]}"
read -u 7 word; echo "read=$?"
exec 6< /dev/null
read -u 6 word; echo "read6=$?"
