set -- a b
set +
echo "plus: $*"
set - +
echo "dash plus: $*"
set + -
echo "plus dash: $*"
set -f + -u x y
echo "flags then words: $* [$-]"
set -
echo "lone dash: $*"
