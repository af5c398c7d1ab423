[ 1 -eq x ] 2>/dev/null; echo $?
