printf "  lead trail  \n" | { read l; echo "[$l]"; }
