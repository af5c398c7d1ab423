printf "a\nb\n" > f
mapfile lines < f
printf "<%s>" "${lines[@]}"; echo
