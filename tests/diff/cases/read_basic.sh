echo "a b c" | { read x y; echo "$x|$y"; }
