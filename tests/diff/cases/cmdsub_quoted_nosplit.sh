for w in "$(echo "a b  c")"; do echo "[$w]"; done
