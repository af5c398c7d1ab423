f() { exit 6; }; f; echo never
