exec 0<&-
read x; echo "read=$?"
echo a | cat
cat < /dev/null; echo "cat=$?"
printf 'y\n' > f2; read z < f2; echo "z=$z"
# A command's exec listener, taken while the shell waits, must not take
# descriptor 0 either: the next member's input is put there.
printf 'abc\n' > f3
cat f3 | tr a-z A-Z
cat f3 | cat | tr a-c x-z
