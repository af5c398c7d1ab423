set_it() { local name=$1; printf -v "$name" "%s" "$2"; }
set_it out "the value"
echo "$out"
