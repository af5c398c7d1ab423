echo abcdef | { read -n3 x; echo "[$x]"; }; echo ab | { read -n 5 y; echo "[$y] $?"; }
