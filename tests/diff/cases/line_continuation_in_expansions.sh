x=1 ab=AB a=A
echo $\
x $a\
b ${\
x} ${a\
b} ${#\
ab}
echo ${y:\
-d} ${x\
:-d} ${ab/\
A/z} ${ab#\
#A} ${ab^\
^}
echo "$\
x" "${\
ab}" $\
\
x
a\
b=3; echo $ab
HOME=/h; echo ~\
/x
