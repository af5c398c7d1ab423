printf "a\nbc" | { read -N3 x; echo "[$x] $?"; }; printf "a b" | { read -N3 p q; echo "[$p][$q]"; }
