# A prefix assignment binds the name for its command only: what the name
# held before comes back after the command, whatever the command did to
# the binding (a function or builtin that unset it or assigned it).
f() { unset x; }
g() { x=2; }
x=global
x=1 f; echo "after unset in a function: [$x]"
x=1 g; echo "after assignment in a function: [$x]"
x=1 unset x; echo "after unset x: [$x]"
x=1 read x <<< word; echo "after read: [$x]"
unset y
y=1 f; echo "unset before: [${y-unset}]"
