# `set` lists each variable so the listing reads back line by line: an
# empty value as nothing, a control character in $'…'.
_e=; _w=$'[\t\r\n]'; _sq="'q'"; _b="\\ \""
set | grep -E '^_(e|w|sq|b)=' > vars.txt
cat vars.txt
unset _e _w _sq _b
. ./vars.txt
test "$_w" = $'[\t\r\n]' && test "$_sq" = "'q'" && test "$_b" = "\\ \"" && echo read back
