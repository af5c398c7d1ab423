f1() { :; }; f2() { :; }; declare -F
