x=1; echo "a"'b'$x"c"
