shopt -s no_such_opt_zz 2>/dev/null; echo "st $?"
