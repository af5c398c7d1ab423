# $- shows set -a (allexport) and set -v (verbose) in bash's order.
echo "$-"
set -a
echo "$-"
set -v
echo "$-"
set +av
echo "$-"
