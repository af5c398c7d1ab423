true; echo $?; false; echo $?; ( exit 7 ); echo $?
