[[ "ab" =~ a(x)?(b) ]]
declare -p BASH_REMATCH
