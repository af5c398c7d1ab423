IFS=; set -- a b; s=$*; echo "[$s]"
