declare x=1; declare -i n=3+4; echo $x $n
