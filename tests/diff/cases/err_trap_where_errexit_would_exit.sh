# The ERR trap runs where set -e would exit: [[ ]] and (( )) included,
# a brace group and if only through the command inside them.
n=0; trap 'n=$((n + 1)); echo "ERR $n"' ERR
[[ a == b ]]
(( 0 ))
{ false; }
if true; then false; fi
! true
[[ a == b ]] || echo "in a condition"
f() { (( 0 )); }
f
echo end
