printf "%s-%d-\n"
