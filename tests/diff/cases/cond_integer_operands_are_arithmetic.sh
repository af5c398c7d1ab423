[[ 1+1 -eq 2 ]] && echo arith; x=4; [[ x -gt 3 ]] && echo name; [[ $x*2 -eq 8 ]] && echo expr
