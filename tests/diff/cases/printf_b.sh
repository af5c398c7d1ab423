printf "%b\n" "a\tb"
