set -e; trap "echo err" ERR; false; echo never
