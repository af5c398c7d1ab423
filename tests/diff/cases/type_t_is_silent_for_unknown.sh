type -t echo cat nosuch; echo $?
f() { :; }
type -t f
type f | head -1
