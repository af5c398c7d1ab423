printf "a\0b\0" | while read -rd "" v; do echo "[$v]"; done; echo abc | { read -rn1 c; echo "[$c]"; }
