# `--` ends declare's options.
declare -- z=1
declare -p z
declare -i -- n=2+3
echo "$n"
declare -- -x
echo "status $?"
