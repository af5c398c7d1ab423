# $_ is empty after a command of assignments alone, the last
# argument after any other (of `declare a=(…)`, the name); an
# assignment reads the old value first.
: foo; echo "[$_]"
x=1; echo "[$_]"
declare s=bar; echo "[$_]"
a=(1 2); echo "[$_]"
x=$(echo y); echo "[$_]"
: q; y=$_; echo "[$y]"
declare a=(1 2); echo "[$_]"
declare a+=(3); echo "[$_]"
declare -a b=(1) c=x; echo "[$_]"
declare -a b=(1) c=(2); echo "[$_]"
f() { local z=(1); echo "[$_]"; }; f
