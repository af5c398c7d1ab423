# wait -n: the next job to end; ended jobs are not waited for again.
{ sleep 0.3; exit 9; } &
{ sleep 0.05; exit 3; } &
wait -n
echo "status=$?"
wait -n -p who
echo "status=$? reported=${who:+yes}"
wait -n
echo "nothing left=$?"
(exit 5) & q=$!
sleep 0.1
wait -n $q 2>/dev/null
echo "already ended=$?"
wait $q
echo "plain wait=$?"
wait zzz
echo "not a pid=$?"
wait -x 2>/dev/null
echo "bad option=$?"
