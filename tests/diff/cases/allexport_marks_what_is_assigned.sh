# set -a exports what is assigned while it is on (an assignment, (( )), read,
# for), not what was set before.
before=1
set -a
after=2
(( arith = 3 ))
read -r fromread <<< 4
for loopvar in 5; do :; done
cat /proc/self/environ | tr '\0' '\n' | grep -E '^(before|after|arith|fromread|loopvar)=' | sort
