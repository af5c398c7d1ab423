cd /nonexistent_zz; echo "st $?"
