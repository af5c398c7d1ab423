printf "line1\nline2\n\n" > f; echo $(<f); x=$(< f); echo "[$x]"; y="$(<f)"; echo "${#y}"
