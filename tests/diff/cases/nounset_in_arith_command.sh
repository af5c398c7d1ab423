set -u; (( nope > 0 )); echo never
