let a=1+2 b=a*3; echo $a $b
