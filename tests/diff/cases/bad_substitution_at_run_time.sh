# differs_from_bash: stderr (bash names the word, guard-sh the expansion)
# A ${…} bash cannot expand is an error only when it is expanded (status 1,
# the rest of the command skipped); a function that holds one is defined.
f() { echo ${#x-$(echo never)}; }
echo defined
echo ${#x-d}; echo same
echo next $?
x=${a[0][0]}; echo after
v=abcdef; echo ${#v:1:3}
a=(1 2); echo ${#a[0]/1/xxx}
echo "${}"
f
echo end $?
