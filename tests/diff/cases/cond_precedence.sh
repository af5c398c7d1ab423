[[ a == b && c == c || d == d ]] && echo left; [[ a == a || b == c && d == e ]] && echo and-binds-tighter
