trap "echo t \$?" TERM; sleep 1 & p=$!; (sleep 0.1; kill -TERM $$) & wait $p; echo "w=$?"; kill $p; wait
