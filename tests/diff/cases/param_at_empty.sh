set --; for w in "$@"; do echo "[$w]"; done; echo count $#
