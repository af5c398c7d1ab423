(exit 3); echo $?; (true; exit); echo $?
