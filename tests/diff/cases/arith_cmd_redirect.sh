(( 1 )) > out.txt; echo $?; cat out.txt; wc -c < out.txt
