printf "%q\n" "a b" "it's" '$x' "" "tab	here" "~user" "a*b"
