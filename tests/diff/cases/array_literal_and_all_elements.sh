a=(one "two three" four)
printf "<%s>" "${a[@]}"; echo
printf "<%s>" ${a[@]}; echo
printf "<%s>" "${a[*]}"; echo
