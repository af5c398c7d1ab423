# differs_from_bash: stderr (guard-sh words its syntax errors its own way)
# An error inside [[ ]] ends the script with $? as it was, not 2.
echo before
false
[[ -z ]]
echo not reached
