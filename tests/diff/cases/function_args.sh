f() { echo "$# $1 $2"; }; f a "b c"
