# differs_from_bash: stderr bash names the script line
wait 99999; echo "st $?"
