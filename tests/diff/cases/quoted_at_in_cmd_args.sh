set -- "1 2" 3; printf "[%s]" "$@"; echo
