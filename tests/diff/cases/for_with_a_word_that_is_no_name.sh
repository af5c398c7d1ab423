# `for WORD in …` where WORD is no name is a run-time error (status 1):
# the loop's words are not expanded and the script goes on.
for - in a $(echo expanded >&2); do echo hi; done
echo "after $?"
for a-b in x; do :; done; echo $?
for x.y; do :; done; echo $?
