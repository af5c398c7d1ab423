x=abcdefgh; echo ${x:2} ${x:2:3} ${x: -3} ${x:1:-2}
