time -p true 2> t.err; n=0; while read -r name value; do n=$((n+1)); echo "$name"; done < t.err; echo $n
