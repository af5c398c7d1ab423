set -u; x=1; echo $(( x + 1 )); echo $(( nope + 1 )); echo never
