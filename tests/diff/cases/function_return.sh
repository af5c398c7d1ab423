f() { return 4; }; f; echo $?
