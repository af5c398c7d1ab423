f() { g; }; g() { echo "g ran"; }; f
