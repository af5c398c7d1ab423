# bash 5.2 expands a leading ~ in the pattern of #, %, / and // and in the
# replacement, even inside double quotes; not after /# or /%, not in a
# value operand inside double quotes, not when quoted or escaped; and a
# word that brace expansion starts with ~ has its tilde prefix.
HOME=/home/bar; x=~; for e in '${x//~/~root}' '"${x//~/~root}"' '${x/~/r}' '${x/#~/a}' '"${x/#~/a}"' '${x/%~/a}' '${x%~}' '"${x%~}"' '${x#~}' '"${x#~}"' '${x##~}' '${x//~/}' '${x//\~/}' "\${x//'~'/}" '${x/~\//y}' '${x//"~"/q}' '${x/~/~/s}' '${u-~}' '"${u-~}"' '${u:-~/a}' '${x:0:1}' '${x////~}' '${x///~}'; do eval "v=$e"; echo "$e => [$v]"; done
HOME=/home/bob; echo {foo~,~}/bar ~{/src,root} {~,x} "{~,x}" \~{a,b} {"~",b}/c; for x in {foo~,~}/bar; do echo -- $x; done; a=({~,~root}/x); echo "${a[@]}"
