[[ a == a && b == b ]] && echo and; [[ a == b || b == b ]] && echo or; [[ a == b && x ]] || echo and-false; [[ a == b || c == d ]]; echo $?
