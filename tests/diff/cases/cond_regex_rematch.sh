[[ key=value =~ =[a-z]+ ]] && echo "$BASH_REMATCH"; [[ xyz =~ q ]]; echo "[$BASH_REMATCH]"
