shopt -s lastpipe
echo a | { read x; echo "got $x"; exit 3; }
echo never
