set -e; false && true; echo still
