f() { local -a arr; arr=($1); echo ${#arr[@]}; }
f "a b c"
