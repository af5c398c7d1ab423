printf -v "a[1]" "%03d" 7
printf -v "a[0]" "%s" zero
declare -p a
