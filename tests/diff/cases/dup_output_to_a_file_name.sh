# >&FILE and 1>&FILE write standard output and error to FILE (as &>);
# any other descriptor duplicated onto a name is an ambiguous redirect.
echo one 1>&nf1; echo "status=$?"; cat nf1
{ echo two; echo err >&2; } >&nf2; cat nf2
echo three 2>&nf3 >&2; echo "status $?"
cat 0<&nf3; echo "status $?"
