[[ 1+ -eq 1 ]]; echo "status $?"; echo after
