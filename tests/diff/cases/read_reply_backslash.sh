printf "a\\\\b c\\\\\n" | { read; echo "[$REPLY]"; }; printf "a\\\\b\n" | { read -r; echo "[$REPLY]"; }
