# A prefix assignment binds the name for its command only: what the name
# held before comes back after the command, whatever the command did to
# the binding; and `unset` in the command removes that binding, showing
# what it shadowed (unless a function made the name local since).
f() { unset x; echo "in f after unset: [${x-unset}]"; }
g() { x=2; }
h() { local x=inner; unset x; echo "in h after unset of a local: [${x-unset}]"; }
caller() { k; echo "caller sees: [${x-unset}]"; }
k() { unset x; }
x=global
x=1 f; echo "after unset in a function: [$x]"
x=1 g; echo "after assignment in a function: [$x]"
x=1 h; echo "after h: [$x]"
x=1 caller; echo "after caller: [$x]"
x=1 unset x; echo "after unset x: [$x]"
x=1 read x <<< word; echo "after read: [$x]"
unset y
y=1 f; echo "unset before: [${y-unset}]"
readonly r=ro
a=1 r=2 g; echo "a after a refused binding: [${a-unset}]"
