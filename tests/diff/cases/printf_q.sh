printf "%q\n" "a b" "it's"
