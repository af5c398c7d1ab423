set -o nosuchoption
echo status $?
