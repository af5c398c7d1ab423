for ((i=0;i<2;i++)); do echo a$i; done; for ((i=0;i<2;i++))
do echo b$i; done
