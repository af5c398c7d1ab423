set -- a b; IFS=-; case $* in a-b) echo joined;; *) echo other;; esac
