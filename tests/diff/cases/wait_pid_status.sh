(exit 7) &
p=$!
(exit 3) &
wait $p
echo "first $?"
wait $!
echo "second $?"
