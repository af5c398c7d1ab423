echo $(( x= )); echo a; echo $(( 1 ? 2 )); echo b
