[[ -d . ]] && echo dir || echo not; [[ -d nope ]] && echo dir || echo not
