for ((i=0;i<3;i++)); do for ((j=0;j<3;j++)); do (( j == 1 )) && break 2; echo "$i$j"; done; done; echo done
