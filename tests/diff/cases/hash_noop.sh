hash; echo "st $?"
