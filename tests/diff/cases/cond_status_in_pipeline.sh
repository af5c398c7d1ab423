echo x | [[ 1 -eq 1 ]]; echo $?; [[ a == b ]] | cat; echo $?
