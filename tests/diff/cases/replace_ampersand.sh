# bash 5.2's patsub_replacement: in ${x/p/r} an unquoted & in r is the
# matched text; a quoted or backslashed & is itself.
x=abc
echo ${x/b/\y} ${x/b/\\} ${x/b/"\&"} ${x/b/\&} ${x/b/"&"} ${x/b/&&}
echo "${x/b/&}" "${x/b/\&}"
y="&"; echo ${x/b/$y} ${x/b/"$y"}
echo ${x/b/[&]} ${x//?/<&>} ${x/#a/&&} ${x/%c/(&)}
p="a b c"; echo ${p// /&} "${p// /&}"
echo ${x/b/*} ${x/b/$(echo "&")} ${x/b}
z="a\\b"; echo ${x/b/$z} "${x/b/$z}"
