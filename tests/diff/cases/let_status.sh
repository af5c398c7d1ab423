let "x = 0"; echo $?; let "x = 5"; echo $?; let x-5; echo $?
