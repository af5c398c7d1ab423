wait; echo "st $?"
