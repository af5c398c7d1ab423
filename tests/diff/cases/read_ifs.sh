echo "a,b,c" | { IFS=, read x y z; echo "$y"; }
