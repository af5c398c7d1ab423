[[ "v1.2" =~ v([0-9])\.([0-9]) ]] && echo "${BASH_REMATCH[2]}" ${#BASH_REMATCH[@]}
re="a[(]b"
[[ "a(b" =~ $re ]] && echo ok "${#BASH_REMATCH[@]}"
