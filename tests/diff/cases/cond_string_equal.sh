[[ a == a ]] && echo eq; [[ a = a ]] && echo single; [[ a != b ]] && echo ne; [[ a == b ]]; echo $?
