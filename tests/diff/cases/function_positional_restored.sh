set -- top; f() { echo $1; }; f inner; echo $1
