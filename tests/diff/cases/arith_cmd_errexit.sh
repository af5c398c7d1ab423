set -e; (( 1 )); echo one; (( 0 )) || echo guarded; (( 0 )); echo never
