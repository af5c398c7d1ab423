# $BASH_SUBSHELL counts the copies of the shell a command runs in as bash
# counts them (a pipeline's simple command and its `( … )` member add none
# of their own); $BASH_VERSINFO and $MACHTYPE agree with $BASH_VERSION.
echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL))
echo $(echo $BASH_SUBSHELL); echo | echo $BASH_SUBSHELL; { echo $BASH_SUBSHELL; }
echo $BASH_SUBSHELL & wait
cat <(echo $BASH_SUBSHELL)
echo x | (echo $BASH_SUBSHELL); echo x | { echo $BASH_SUBSHELL; }
f() { echo $BASH_SUBSHELL; }; echo | f
x=$( (echo $BASH_SUBSHELL) ); echo $x
echo a | (exit 3); echo "status $?"
echo a | (cat; echo in) | cat
echo ${#BASH_VERSINFO[@]} ${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}
[ "$MACHTYPE" = "${BASH_VERSINFO[5]}" ] && echo machtype agrees
