# bash expands braces in the text before it reads a name: `{$a,b}_c`
# gives `$a_c`, the variable a_c; a braced or quoted name does not read on.
a=A; a_c=AC
echo {$a,b}_{c,d}
echo {_$a,b}_{c,d}
echo {${a},b}_{c,d} {"$a",b}_{c,d} {$a,b}-{c,d}
set -- x; echo {$1,b}0
echo $a_c {a,$a}
