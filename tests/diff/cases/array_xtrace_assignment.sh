set -x
a=(1 "2 3")
a[4]=x
set +x
