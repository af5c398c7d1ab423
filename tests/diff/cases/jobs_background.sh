# Background jobs as a script sees them: `jobs` lists the running ones,
# `%N` names them for `kill` and `wait`, and a job killed by its pid
# reports the signal (the copy of the shell that runs it waits for it to
# the end). Which ended jobs bash lists afterwards depends on when it
# reaped them, so this case lists only running ones.
sleep 0.4 & sleep 0.3 &
jobs
jobs %2
wait
sleep 1 & sleep 0.1; kill $!; wait $!; echo "killed $?"
sleep 1 & kill %%; wait %%; echo "by job $?"
wait %9; echo "no such job $?"
fg; echo "fg $?"
bg; echo "bg $?"
