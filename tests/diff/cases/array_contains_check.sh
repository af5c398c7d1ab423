a=(red green blue)
for want in green purple; do
  found=no
  for c in "${a[@]}"; do [[ $c == "$want" ]] && found=yes; done
  echo "$want $found"
done
