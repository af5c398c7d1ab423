[ a = a 2>/dev/null; echo $?
