# FUNCNEST bounds recursion: an error, status 1, and the rest of the line is dropped.
FUNCNEST=50
f() { f; }
f; echo not reached
