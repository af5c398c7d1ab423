type -t echo; f() { :; }; type -t f
