# $_ is empty after a command of assignments alone, and the last
# argument after any other; an assignment reads the old value first.
: foo; echo "[$_]"
x=1; echo "[$_]"
declare s=bar; echo "[$_]"
a=(1 2); echo "[$_]"
x=$(echo y); echo "[$_]"
: q; y=$_; echo "[$y]"
