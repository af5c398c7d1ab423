echo() { printf "func\n"; }; command echo real
