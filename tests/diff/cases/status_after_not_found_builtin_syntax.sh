echo $((2 + 3))
