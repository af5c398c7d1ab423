# [[ -o NAME ]]: whether a set option is on (an unknown name is off).
[[ -o errexit ]]; echo "off $?"
set -e; [[ -o errexit ]]; echo "on $?"; set +e
[[ -o nosuch ]]; echo "unknown $?"
[[ -o braceexpand ]]; echo "braceexpand $?"
set -o pipefail; [[ ! -o pipefail ]]; echo "negated $?"
