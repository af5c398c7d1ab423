echo a{b,c,d}e
