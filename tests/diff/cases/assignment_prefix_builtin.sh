IFS=, read -r a b <<< "1,2"; echo "$a $b"; echo "[$IFS]" | od -c | head -1 >/dev/null; echo ok
