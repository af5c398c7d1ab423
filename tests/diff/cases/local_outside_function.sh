local x=1 2>/dev/null; echo "st $?"
