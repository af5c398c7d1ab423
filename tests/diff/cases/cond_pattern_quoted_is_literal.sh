[[ abc == "a*" ]] || echo literal-star; [[ "a*" == "a*" ]] && echo same; p="a*"; [[ abc == $p ]] && echo var-pattern; [[ abc == "$p" ]] || echo quoted-var
