f() { echo 1; }; f() { echo 2; }; f
