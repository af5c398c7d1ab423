# trap takes KILL and STOP (stored and listed, never run) and reads a
# first operand that is a number as a condition to put back; ${x/#/p}
# and ${x/%/s} put the replacement before or after; in a UTF-8 locale
# ${x#?} cuts whole characters; set -x traces a command before its
# redirections, on the shell's own stderr.
trap 'echo hi' KILL; echo "kill $?"
trap 'echo x' 19
trap -p
trap - STOP KILL
trap 'echo EXIT' EXIT
trap 'echo INT' INT
trap 0 2
trap -p
echo ---
x=abc
echo "${x/#/pre-} ${x/%/-suf} ${x/#/[&]}"
a=(aa bb "")
printf '[%s]' "${a[@]/#/p-}" "${a[@]/%/-s}"; echo
LC_ALL=C.UTF-8
y=μabcμ
echo "${y#?} ${y%?} ${y#μ} ${y:1:2}"
set -x
printf 'aaaa' > /dev/null 2> traced
set +x
cat traced
echo end
