diff <(printf "a\n") <(printf "a\n") && echo same
