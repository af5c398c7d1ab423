read a b <<EOF
one two three
EOF
echo "$a|$b"
