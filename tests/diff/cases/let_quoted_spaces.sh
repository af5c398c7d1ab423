let "a = 2 * 3" "b = a + 1"; echo $a $b
