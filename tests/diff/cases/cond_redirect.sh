[[ a == a ]] > out.txt; echo $?; wc -c < out.txt
