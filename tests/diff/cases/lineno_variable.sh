echo $LINENO

echo $LINENO
f() {
  echo "f $LINENO"
}
f
if true; then
  echo $LINENO
fi
eval "echo \$LINENO"
echo a; echo $LINENO
for i in 1 2; do
  echo "loop $LINENO"
done
