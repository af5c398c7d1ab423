printf 'a\\ b\n' | { read l; echo "$l"; }
