for x in a "b c" d; do echo "[$x]"; done
