# kill -l and trap -l list every signal as bash does (five to a line, the
# real-time ones by SIGRTMIN+K / SIGRTMAX-K); kill -l SPEC converts.
kill -l
trap -l
kill -l 15 143 TERM SIGint 99; echo "status $?"
kill -l 34 64 RTMIN+3
