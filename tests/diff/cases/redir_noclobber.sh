echo 1 > f; set -C; echo 2 > f; echo "st $?"; echo 3 >| f; cat f
