# Function names may hold `-`, `.` and `:` after their first byte, as
# bash takes them (namespaced helpers, names like a file's).
ns::greet() { echo "hello from $FUNCNAME"; }
log.info() { echo "info: $*"; }
function build-all { echo building; }
ns::greet
log.info one two
build-all
type ns::greet | head -1
declare -F log.info
declare -F
typeset -F build-all
declare -F nothing-here; echo "missing: $?"
