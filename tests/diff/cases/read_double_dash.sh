echo "a b" | { read -r -- x y; echo "$x/$y"; }
