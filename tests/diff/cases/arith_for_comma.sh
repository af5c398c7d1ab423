for ((a=0, b=4; a < b; a++, b--)); do echo "$a $b"; done
