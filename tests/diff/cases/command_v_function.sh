f() { :; }; command -v f
