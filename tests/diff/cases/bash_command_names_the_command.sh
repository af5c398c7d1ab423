# $BASH_COMMAND names the command being run (before its words expand),
# in a function too, and inside a trap's action the command the trap
# interrupted; substitutions print as written.
echo "$BASH_COMMAND"
x=$(echo "$BASH_COMMAND"); echo "$x"
f() { echo "in f: $BASH_COMMAND"; }
f arg
trap 'echo "err: $BASH_COMMAND"' ERR
g() { false inner; }
g
{ false grp; }
false  >/dev/null   2>&1
y=$(false sub)
[[ a == b ]]
(( 0 ))
trap - ERR
trap 'echo "exit: $BASH_COMMAND"' EXIT
true a
false b
