[[ abc =~ (a) ]]
[[ xyz =~ ([0-9]+) ]]
echo "${#BASH_REMATCH[@]}"
declare -p BASH_REMATCH
