! (( 0 )) && echo negated; ! (( 5 )); echo $?
