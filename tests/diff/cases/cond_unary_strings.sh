[[ -z "" ]] && echo z; [[ -n x ]] && echo n; [[ -n "" ]] || echo not-n
