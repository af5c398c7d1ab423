set -x; x=1; echo $x "a b"
