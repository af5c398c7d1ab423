x="1 2"; for w in pre${x}post; do echo "[$w]"; done
