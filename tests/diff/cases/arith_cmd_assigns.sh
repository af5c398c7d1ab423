x=4; (( x *= 2, y = x + 1 )); echo "$x $y"
