printf "a\nb" | { mapfile -t x; declare -p x; }
printf "" | { mapfile -t y; declare -p y; }
