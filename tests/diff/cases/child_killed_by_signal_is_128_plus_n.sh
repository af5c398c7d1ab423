sleep 5 &
p=$!
sleep 0.3
kill -TERM $p
wait $p
echo "status $?"
