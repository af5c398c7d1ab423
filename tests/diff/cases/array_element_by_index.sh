a=(zero one two three)
echo "${a[0]}" "${a[2]}" "${a[3]}" "[${a[4]}]"
