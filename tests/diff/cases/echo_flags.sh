echo -n no; echo; echo -e "a\tb"; echo -E "a\tb"; echo -- -n
