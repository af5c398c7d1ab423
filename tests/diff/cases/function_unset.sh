f() { echo 1; }; unset -f f; type f >/dev/null 2>&1; echo $?
