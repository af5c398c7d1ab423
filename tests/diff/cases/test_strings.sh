[ a = a ] && echo eq; [ a != b ] && echo ne; [ -z "" ] && echo z; [ -n x ] && echo n
