# `hash` with nothing hashed yet: a name that is a command is found, one
# that is not is reported; -t, -r, -d and bad options as bash.
hash echo; echo "echo $?"
hash no-such-command; echo "none $?"
hash -t cat; echo "t $?"
hash -r; echo "r $?"
hash -d cat; echo "d $?"
hash; echo "empty $?"
hash -x; echo "x $?"
hash -- cat; echo "cat $?"
