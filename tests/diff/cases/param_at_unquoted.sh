set -- "a b" c; for w in $@; do echo "[$w]"; done
