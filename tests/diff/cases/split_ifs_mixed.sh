x="a : b"; IFS=" :"; for w in $x; do echo "[$w]"; done
