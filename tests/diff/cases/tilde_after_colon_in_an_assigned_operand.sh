# In an assignment's value, a ${…} value word expands a tilde after `:`
# too; in an argument (even one that looks like an assignment) it does not.
HOME=/home/bar
x=~:${undef-~:~}; echo $x
z=${u:-~/a:~b:~}; echo "$z"
b[1]=${u-~:~}; echo ${b[1]}
echo ${u-~:~} x=${u-~:~}
w="${u-~:~}"; echo $w
v=$(echo ${u-~:~}); echo $v
