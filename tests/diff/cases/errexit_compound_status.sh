# set -e judges a brace group, if, a loop and case by the commands inside.
set -e
{ test no = yes && echo hi; }
echo "brace group: $?"
if true; then test a = b && echo no; fi
echo "if: $?"
for i in 1; do test a = b && echo no; done
echo "for: $?"
case x in x) test a = b && echo no;; esac
echo "case: $?"
f() { test a = b && echo no; }
f || echo "function in a condition: $?"
( test a = b && echo no ) || echo "subshell in a condition: $?"
[[ a == b ]] || echo "cond in a condition: $?"
{ false; }
echo "not reached"
