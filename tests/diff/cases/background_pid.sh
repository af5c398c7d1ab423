true & p=$!; wait $p; echo "st $?"; [ -n "$p" ] && echo have_pid
