printf "noeol" | { read l; echo "st $? $l"; }
