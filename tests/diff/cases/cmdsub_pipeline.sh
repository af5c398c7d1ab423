echo $(printf "b\na\n" | sort | tr "\n" " ")
