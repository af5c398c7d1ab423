set -- a b c d; echo "${@:2:2}"
