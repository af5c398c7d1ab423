f() { echo "$# args: $*"; }
a=("one two" three)
f "${a[@]}"
f "${a[*]}"
