exec 4> f4; echo to4 >&4; exec 4>&-; cat f4
