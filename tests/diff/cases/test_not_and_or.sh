[ ! -e nope ] && echo notexist; [ a = a -a b = b ] && echo and; [ a = b -o b = b ] && echo or
