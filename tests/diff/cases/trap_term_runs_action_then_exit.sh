trap 'echo caught TERM; exit 9' TERM
kill -TERM $$
echo "not reached"
