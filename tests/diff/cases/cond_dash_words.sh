[[ "-x" == "-x" ]] && echo quoted-dash; a=-f; [[ $a == -f ]] && echo var-dash; [[ x == -f ]] || echo rhs-dash
