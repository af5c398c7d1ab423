unset a; for w in ${a:-"x y"}; do echo "[$w]"; done
