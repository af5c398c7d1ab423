# bash's strings are C strings: a NUL ends $'…' and the result of
# printf -v, ${x@E} and each mapfile line; command substitution drops
# NULs with a warning; read drops them.
a=$'a\0b'c; echo "${#a} $a"
b=$'p\x00q'; echo "${#b}"
c=$'m\000n'; echo "${#c}"
d=$'k\u0000l'; echo "${#d}"
e=$'x\c@y'; echo "${#e}"
printf -v f 'g\0h'; echo "${#f}"
x='c\0d'; y=${x@E}; echo "${#y}"
z=$(printf 'a\0b'); echo "${#z} $z"
printf 'u\0v\nw\0x\n' > nul.txt
w=$(< nul.txt); echo "${#w}"
read -r r < nul.txt; echo "${#r} $r"
mapfile -t lines < nul.txt; echo "${#lines[@]} ${#lines[0]} ${lines[1]}"
IFS= read -r -d '' q < nul.txt; echo "${#q} $q"
mapfile -d '' -t parts < nul.txt; echo "${#parts[@]}"
printf '%s\n' $'one\0two' | wc -c
