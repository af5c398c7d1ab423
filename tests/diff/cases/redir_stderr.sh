ls /nonexistent_zz 2> err; echo "status $?"; wc -l < err
