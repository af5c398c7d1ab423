declare -x EXPORTED=yes
cat /proc/self/environ | tr "\0" "\n" | grep ^EXPORTED=
