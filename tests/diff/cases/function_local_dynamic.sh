g() { echo $v; }; f() { local v=outer; g; }; f; echo "[$v]"
