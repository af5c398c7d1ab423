x=1; (x=2; echo in $x); echo out $x
