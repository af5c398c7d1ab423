# readonly -a/-A make an array only of a name given a value; an unset
# name stays a plain readonly name, as in bash.
readonly -a x; declare -p x
readonly -A w; declare -p w
declare -ra y; declare -p y
readonly -a z=(1); declare -p z
readonly -a v=3; declare -p v
