(( 1 + )); echo "status $?"; echo after
