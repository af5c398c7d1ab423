[[ "" ]] || echo empty; [[ $undefined ]] || echo unset; [[ x ]] && echo word; [[ -z $undefined ]] && echo z
