a=(alpha beta)
[[ ${a[1]} == b* ]] && echo glob-match
[[ ${#a[@]} -eq 2 ]] && echo two
[[ " ${a[*]} " == *" alpha "* ]] && echo contains
