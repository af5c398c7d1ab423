echo $(( 1 + )); echo after
