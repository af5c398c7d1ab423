printf "%d|%i|%x\n" "" "" ""; echo $?
