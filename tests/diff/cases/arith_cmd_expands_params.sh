x=6; y=x; (( $x == 6 )) && echo dollar; (( y == 6 )) && echo indirect-name
