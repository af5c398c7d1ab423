[[ ( a == a || b == c ) && ! -z q ]] && echo group; [[ ! ( a == b ) ]] && echo not-group; [[ (a == a) ]] && echo tight
