source ./nope.sh 2>/dev/null; echo "st $?"
