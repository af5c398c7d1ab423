a=(1 2)
export a
declare -p a
cat /proc/self/environ | tr "\0" "\n" | grep "^a=" || echo "not in env"
