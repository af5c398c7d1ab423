echo a; echo b
echo c

echo d
