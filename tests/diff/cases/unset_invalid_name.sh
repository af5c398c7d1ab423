unset "1abc"
echo status $?
