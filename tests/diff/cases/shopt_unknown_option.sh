shopt -s nosuchopt
echo status $?
