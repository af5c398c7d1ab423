sleep 5 &
kill -TERM $!
wait $!
echo "status $?"
(sleep 5; echo not) &
p=$!
sleep 0.2
kill -TERM $p
wait $p
echo "subshell $?"
