# differs_from_bash: stderr bash reports the killed job
sleep 5 & kill $!; wait $!; echo "killed $?"; sleep 5 & kill -KILL $!; wait $!; echo "nine $?"
