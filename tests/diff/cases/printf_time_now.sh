a=$(printf "%(%Y)T" -1); b=$(date +%Y); [ "$a" = "$b" ] && echo now-ok
