# A file or here-document opened for descriptor 3 or 4 reaches the command
# even when the shell's open landed on that very number (it was opened
# close-on-exec, and moving it onto itself must clear that).
echo hi > f
cat /dev/fd/3 3<f
cat 3<<EOF3 <<EOF0 /dev/fd/3 -
fd3
EOF3
fd0
EOF0
head -c 3 /dev/fd/4 4<<EOF
abcdef
EOF
echo
cat /dev/fd/3 3<<<here
{ cat /dev/fd/3; } 3<f
cat <&3 3<f; echo "status $?"
