set -u; [[ nope -eq 0 ]]; echo never
