for ((i=5;;i++)); do (( i > 7 )) && break; echo $i; done
