printf "x y\nz\n" | while read a b; do echo "[$a][$b]"; done
