even() { (( $1 % 2 == 0 )); }
for n in 1 2 3 4; do even $n && echo "$n even"; done
