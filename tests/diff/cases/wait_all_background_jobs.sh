(sleep 0.2; echo slow) &
(echo fast) &
wait
echo "after wait $?"
