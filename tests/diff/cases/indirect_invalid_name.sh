r="not a name"
echo "${!r}"
echo not reached
