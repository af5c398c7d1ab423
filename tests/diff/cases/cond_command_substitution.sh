[[ $(echo hi) == hi ]] && echo subst; [[ "$(printf "a b")" == "a b" ]] && echo quoted-subst
