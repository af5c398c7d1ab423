trap 'echo caught INT' INT
kill -INT $$
echo "goes on $?"
