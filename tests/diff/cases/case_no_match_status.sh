case x in y) echo y;; esac; echo "st $?"
