x="a b"; [[ $x == "a b" ]] && echo nosplit; [[ $x == a\ b ]] && echo escaped; y="*"; [[ $y == "*" ]] && echo noglob
