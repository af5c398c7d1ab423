# Before a command, NAME=(…) binds its text, (a b), exported to it; an
# element assignment is no name to bind: an error, and the command runs.
show() { echo "A=$A B=$B b=${b-unset} c=$c"; declare -p B; }
A=a B=(b  b) show
A=a B=(b  b) sh -c 'echo "new shell: $B"'
x=1; B=($x "a  b" [k]=v $(echo hi)) show
a=1 b[0]=2 c=3 show; echo "status $?"
declare -p B b
