x=v; echo "a \$x \\ \" $x"
