# A compound command's own redirection that fails is judged by set -e.
set -e
if { cat; } < missing.txt; then echo no; else echo "in a condition: $?"; fi
while read -r line; do echo "$line"; done < missing.txt
echo "not reached"
