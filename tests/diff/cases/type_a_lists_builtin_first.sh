type -a echo | head -1
type -a nosuch; echo $?
f() { :; }
type -a f | head -1
