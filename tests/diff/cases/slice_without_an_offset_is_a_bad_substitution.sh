# `${x:}` has no offset: bash's bad substitution, which ends the shell;
# an empty offset before a length is 0.
s=123; a=(1 2 3)
echo "${s::2}" ${s: } "${a[@]::2}"
( echo ${a[@]:} ; echo not reached )
echo "status $?"
echo ${s:}
echo not reached either
