printf "%x %X %o %05d %+d %.3d\n" 255 255 8 42 7 5
