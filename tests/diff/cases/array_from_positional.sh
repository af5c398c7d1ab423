set -- a "b c" d
args=("$@")
echo ${#args[@]} "${args[1]}"
args=("${@:2}")
echo "${args[@]}"
