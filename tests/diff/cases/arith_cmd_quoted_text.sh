(( "1 + 1" == 2 )) && echo quoted
