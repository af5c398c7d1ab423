a=(
  one   # first
  two
  "three four"
)
echo ${#a[@]} "${a[2]}"
