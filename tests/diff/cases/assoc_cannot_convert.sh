declare -A m
declare -a m
echo status $?
a=(1)
declare -A a
echo status $?
