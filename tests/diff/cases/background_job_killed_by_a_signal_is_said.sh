# A script's background job killed by a signal is said when it is reaped
# (not for INT, TERM and PIPE), with the signal's description.
sleep 1 & kill -HUP $!
wait $! 2>err.txt; echo "status=$?"
sleep 1 & kill -TERM $!; wait 2>>err.txt
sleep 1 & kill -INT $!; wait 2>>err.txt
sleep 1 & kill -USR1 %1; wait 2>>err.txt
sleep 1 & kill -KILL $!; wait 2>>err.txt
grep -o -E 'Hangup|Killed|Terminated|Interrupt|User defined signal 1 +sleep 1' err.txt
