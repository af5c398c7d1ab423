set -- a b; x="$@"; echo "$x"
