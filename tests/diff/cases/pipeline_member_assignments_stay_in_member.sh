echo ${y:=3} | cat; echo "[$y]"; x=1 | cat; echo "[$x]"
