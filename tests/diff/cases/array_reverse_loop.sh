a=(1 2 3 4)
for (( i=${#a[@]}-1; i>=0; i-- )); do printf "%s " "${a[i]}"; done; echo
