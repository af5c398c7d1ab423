seq 10 > f
mapfile -t -s 2 -n 3 a < f
declare -p a
mapfile -t -O 5 -n 2 a < f
declare -p a
