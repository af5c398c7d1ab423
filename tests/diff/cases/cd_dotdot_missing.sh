cd nonexistent/..; echo "status $?"; here=$(pwd); mkdir -p real/sub; cd real/sub/../..; [ "$(pwd)" = "$here" ] && echo back
