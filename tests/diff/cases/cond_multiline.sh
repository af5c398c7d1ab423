if [[ a == a &&
      b == b ]]; then echo multi; fi
[[ x == x
   || y == z ]] && echo newline-inside
