printf "1\n2\n3\n" > f; while read l; do echo "got $l"; done < f
