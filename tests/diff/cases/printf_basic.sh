printf "%s|%d|%5s|%-5s|\n" str 42 r l
