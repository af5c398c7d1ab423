x=a; x+=b; echo $x
