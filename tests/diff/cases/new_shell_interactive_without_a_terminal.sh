# bash -i with -c text or piped input (no terminal): $- holds i, HISTFILE
# is set, and a set -u error ends the line, not the shell. A set -u error
# at the top of -c text is status 127, as bash's.
bash --norc -c 'echo histfile=${HISTFILE:+yes}'
bash --norc -i -c 'echo histfile=${HISTFILE:+yes}; case $- in *i*) echo interactive;; esac' 2>/dev/null
bash -c 'set -u; echo before; echo $x; echo after'
echo "status $?"
bash -i -c 'set -u; echo before; echo $x; echo after
echo line2
' 2>/dev/null
echo "status $?"
echo 'set -u; echo $y; echo z
echo next' | bash -i 2>/dev/null
echo "status $?"
bash -euc "echo \$u" 2>/dev/null; echo "st $?"; bash -uc "echo \$u" 2>/dev/null; echo "st $?"
