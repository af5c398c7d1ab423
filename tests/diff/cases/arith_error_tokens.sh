echo $(( 1 * * 2 )) ; echo a; echo $(( 5/0+1 )); echo b; echo $(( 1 2 )); echo c
