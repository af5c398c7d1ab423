printf "a\nb c\n\nd\n" > f
mapfile -t lines < f
declare -p lines
