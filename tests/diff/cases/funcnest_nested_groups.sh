# Recursion through nested groups stops at FUNCNEST like plain recursion.
FUNCNEST=40
depth=0
g() { { { { { { { { depth=$((depth+1)); g; }; }; }; }; }; }; }; }
g; echo not reached
