files=(a.txt "b c.txt" d.txt)
for f in "${files[@]}"; do echo "file: $f"; done
for i in "${!files[@]}"; do echo "$i=${files[i]}"; done
