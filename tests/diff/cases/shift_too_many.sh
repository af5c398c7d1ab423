set -- a; shift 3; echo "st $?"
