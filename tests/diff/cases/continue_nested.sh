for i in 1 2; do for j in a b; do [ $j = a ] && continue 2; echo no; done; done; echo out
