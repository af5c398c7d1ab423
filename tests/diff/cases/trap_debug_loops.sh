trap "echo \"[\$BASH_COMMAND]\"" DEBUG; for i in 1 2; do :; done; for ((i=0;i<2;i++)); do :; done
