printf 'a\\tb\n' | { read -r l; echo "$l"; }
