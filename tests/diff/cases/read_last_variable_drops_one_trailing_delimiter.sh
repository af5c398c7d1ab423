# The last variable of read gets the rest of the line; when the rest is
# one field and its delimiter, it gets the field alone, as bash does.
for s in x xx xxx xxxx; do IFS=x read a b <<< "$s"; echo "[$a] [$b]"; done
for s in 1:2: 1:2:3: ':' '::' 'a : '; do IFS=: read a b <<< "$s"; echo "[$a] [$b]"; done
IFS=' :' read a b <<< 'one two : '; echo "[$a] [$b]"
read a b <<< '  lone   '; echo "[$a] [$b]"
read a <<< ' all  of it  '; echo "[$a]"
