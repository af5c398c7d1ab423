echo $\
x