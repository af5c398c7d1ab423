eval 'printf "%s\n" "it'"'"'s"'
