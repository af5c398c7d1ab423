lines=()
while IFS= read -r l; do lines+=("$l"); done <<EOF
first line
  second
EOF
declare -p lines
