echo $\
(echo hi) $(\
(1+2)) $((1+\
2)) $((1+2)\
) $\
((3*4)) "$(\
(5))"
echo `echo $\
x`
x=7; echo `echo $\
x`
