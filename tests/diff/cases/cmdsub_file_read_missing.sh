x=$(< nofile); echo "status $? [$x]"
