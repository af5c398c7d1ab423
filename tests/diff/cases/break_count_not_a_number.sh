# A loop count that is not a number ends the shell with 128 (it used to loop forever).
x=oops
while true; do
    echo hi
    break $x
done
echo not reached
