true; echo $?; false; echo $?; :; echo $?
