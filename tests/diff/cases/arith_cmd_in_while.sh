i=0
while (( i < 5 )); do echo -n "$i "; (( i++ )); done
echo
