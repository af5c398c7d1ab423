case $$ in *[!0-9]*) echo bad;; *) echo num;; esac
