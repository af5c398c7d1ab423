sleep 0.1 & sleep 0.2 & wait; echo "all $?"; (exit 4) & sleep 0.2; wait $!; echo "late $?"; (exit 3) & wait $!; echo "now $?"
