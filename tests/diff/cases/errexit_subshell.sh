set -e; (false); echo never
