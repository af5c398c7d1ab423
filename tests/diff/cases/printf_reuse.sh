printf "%s=%s\n" a 1 b 2 c
