# A byte no arithmetic token starts with (`#`, `;`, quotes, braces) fails
# the expression as bash reads it, one token ahead: an assignment just
# before it is not made.
(( a = 3 + 4  # comment
))
echo "[$a] $?"
(( b=1, c=2 # x
))
echo "[$b][$c]"
echo $(( 1 2 )) 2>/dev/null; echo "status $?"
x=$(( d = 5 ; 1 )) 2>/dev/null; echo "[$d]"
