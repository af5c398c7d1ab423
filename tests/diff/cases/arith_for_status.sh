for ((i=0;i<0;i++)); do false; done; echo "none $?"; for ((i=0;i<1;i++)); do false; done; echo "last $?"
