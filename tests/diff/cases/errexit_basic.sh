set -e; echo a; false; echo never
