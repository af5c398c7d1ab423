cat < /nonexistent_file_zz; echo "st $?"
