# break or continue with a second operand ends the line (status 1), not
# the shell: the script goes on with the next line.
for x in a b c; do
  echo $x
  continue 1 2 3
done
echo "after the loop $?"
for x in a b; do echo $x; break 1 2; done; echo same line
echo "next line $?"
f() { for x in a; do break 1 2; done; echo in f; }
f; echo same
echo end
