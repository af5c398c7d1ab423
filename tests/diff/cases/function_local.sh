x=g; f() { local x=l; echo $x; }; f; echo $x
