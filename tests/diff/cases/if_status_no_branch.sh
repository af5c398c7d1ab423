if false; then echo no; fi; echo "st $?"
