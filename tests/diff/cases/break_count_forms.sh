# Counts bash accepts (spaces, a plus sign), and ones out of range.
for i in 1 2; do for j in a b; do echo $i$j; break " 2"; done; done
for i in 1 2; do for j in a b; do echo $i$j; break +2; done; done
for i in 1 2; do continue -0; done; echo "status $?"
for i in 1 2; do continue 0; done; echo "status $?"
for i in 1 2; do break 99; done; echo "status $?"
( for i in 1; do break 0x1; done; echo not reached ); echo "subshell $?"
( for i in 1; do continue 2 3; done; echo not reached ); echo "subshell $?"
for i in 1 2; do for j in a b; do echo $i$j; continue 0; echo no; done; echo no; done; echo "all loops left: $?"
break 0; echo "outside a loop: $?"
for i in 1 2; do false; [ $i = 2 ] && break; done; echo "after break: $?"
i=0; while [ $i -lt 3 ]; do i=$((i+1)); false; done; echo "while ran out: $?"
