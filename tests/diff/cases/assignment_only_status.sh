x=$(exit 3); echo $?
