re="((a)(b))c"
[[ abc =~ $re ]] && echo "${BASH_REMATCH[@]}"
