a=3; (( a == 3 )) && echo yes || echo no; (( a == 4 )) && echo yes || echo no
