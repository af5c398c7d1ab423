FOO=foo BAR="[$FOO]" cat /proc/self/environ | tr "\0" "\n" | grep -E "^(FOO|BAR)=" | sort
FOO=1
FOO=2 BAR="$FOO" cat /proc/self/environ | tr "\0" "\n" | grep ^BAR=
