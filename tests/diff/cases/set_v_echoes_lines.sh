set -v
echo one
x=2
set +v
echo three
