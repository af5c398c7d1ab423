trap 'echo "err at status $?"' ERR
false
echo next
true
