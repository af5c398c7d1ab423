x="a b c"; IFS=; for w in $x; do echo "[$w]"; done
