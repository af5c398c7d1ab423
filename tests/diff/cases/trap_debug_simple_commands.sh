trap "echo dbg" DEBUG; echo a; x=1; f() { echo inf; }; f; [[ 1 ]]; (( 1 )); for i in 1; do :; done
