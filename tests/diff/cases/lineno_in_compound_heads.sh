echo one
[[ $LINENO -eq 2 ]] && echo OK
(( x = LINENO ))
echo $x
for x in \
  $LINENO zzz; do
  echo $x
done
case $LINENO in
  9) echo 'got line 9' ;;
  *) echo line=$LINENO
esac
for (( i = 0; i < $LINENO - 10; i++ )); do
  echo $i $LINENO
done
f() {
  echo in f $LINENO
}
f
while [[ $LINENO -lt 0 ]]; do :; done; echo $LINENO
