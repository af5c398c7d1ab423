# bash -c, a script and standard input start a new shell: it sees the
# exported variables, not the caller's others or its functions; $0 and the
# positional parameters come from its arguments; its exit ends it alone.
x=plain; export y=exported
f() { echo function; }
bash -c 'echo "[$x] [$y] $0 $1 $#"' name one two
bash -c 'echo "$0"'
bash -c 'f 2>/dev/null || echo "no function: $?"'
bash -c 'exit 3'; echo "status $?"
printf 'echo from stdin\nexit 4\necho not reached\n' | bash; echo "status $?"
printf 'echo "script $0 $1 $#"\n' > s.sh; bash s.sh arg; bash -- s.sh a b
bash -e -c 'false; echo not reached'; echo "errexit $?"
bash -o pipefail -c 'false | true'; echo "pipefail $?"
bash -euc 'echo "${unset_here}"' 2>/dev/null; echo "nounset $?"
sh -c 'echo "sh: $0"'
bash <<'EOF'
echo "here-document $((1 + 2))"
EOF
(cd / && bash -c pwd)
bash -c 'x=inner; y=changed'; echo "after: $x $y"
bash -c 'echo "$(echo nested substitution)"; (echo subshell)'
# The shell that started it is its caller's to signal, as in bash.
trap 'echo "USR1 trapped: $?"' USR1
sh -c "kill -USR1 $$"; echo "after kill: $?"
trap - USR1
# Its $BASH_SUBSHELL counts from itself; $_ is set before its first command.
bash -c 'echo "subshell level: $BASH_SUBSHELL"; (echo "inside: $BASH_SUBSHELL")'
(bash -c 'echo "from a subshell: $BASH_SUBSHELL"')
bash -u -c 'echo "${_:+set}"'
