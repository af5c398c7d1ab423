x=0; (( 5 / x )); echo "status $?"
