IFS=:; for w in a:b; do echo "[$w]"; done
