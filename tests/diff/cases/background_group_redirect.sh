# A background compound command's redirections are its own: they apply to
# the whole group, loop or subshell and end with it; the shell's output is
# untouched, before and after.
{ echo a > /dev/null; echo b; } & wait
{ echo c; echo d; } > /dev/null & wait
( echo e ) 2>&1 > /dev/null & wait
for i in 1 2; do echo "loop $i"; done > /dev/null & wait
{ echo f >&2; } 2>&1 & wait
echo after
# A background pipeline: its members' descriptors are theirs.
echo p | cat > /dev/null & wait
{ echo q | cat; echo r; } | cat & wait
echo last
