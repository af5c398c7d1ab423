set -e; x=$(false; echo after); echo "[$x]"; y=$(echo a; false); echo "[$y] reached"
