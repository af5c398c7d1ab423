f() { echo infunc; }; f > out; cat out
