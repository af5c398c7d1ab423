let "d = 1 +"; echo $?; echo after
