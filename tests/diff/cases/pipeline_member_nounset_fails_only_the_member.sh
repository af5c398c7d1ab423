set -u; echo $nope | cat; echo "next $?"
