[[ ! -f nope ]] && echo negated; [[ ! a == b ]] && echo not-equal; [[ ! ! x ]] && echo double
