for ((i=0;i<6;i++)); do (( i % 2 )) && continue; echo even $i; done
