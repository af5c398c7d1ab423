exec 3< <(echo x); cat <&3; exec 4< <(printf "l1\nl2\n"); read -u 4 a; read -u 4 b; echo "$a $b"
