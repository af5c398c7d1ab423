trap "echo \"[\$BASH_COMMAND]\"" DEBUG; x=5; echo $x > /dev/null; echo hi | cat; case a in a) :;; esac
