# trap and kill take every signal of the system by name: URG and WINCH
# run their actions; a fault or a job-control stop is stored and listed.
trap 'echo got URG' URG
kill -URG $$
trap 'echo got WINCH' SIGWINCH
kill -s WINCH $$
{ echo begin child; sleep 0.1; echo end child; } &
kill -URG $!
wait
echo "wait status $?"
trap '' TSTP; trap 'echo x' SEGV
trap -p TSTP SEGV URG
# A number first: every operand is a condition to reset (07 is BUS).
trap 'echo not run' EXIT
trap 07 EXIT
trap -1 EXIT
echo "status $?"
kill -l XCPU PWR 31
