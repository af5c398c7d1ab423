i\
f true; then echo if; f\
i
true &\
& echo and
false |\
| echo or
echo err 2\
>/dev/null
echo out 1\
>&2 2>/dev/null
echo $\
'a\tb'
echo 'a\
b' $'c\
d'
echo a # c \
echo b
echo $(# c\
echo x
)
echo `echo 'a\
b'`
x=
echo "${x:-'a\
b'}" ${x:-'c\
d'}
