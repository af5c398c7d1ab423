[ 3 -lt 5 ] && echo lt; [ 5 -ge 5 ] && echo ge; [ 2 -eq 3 ] || echo neq
