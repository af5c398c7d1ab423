set -- -x y; echo "$1 $2"
