# A script may read its own file (data after `exit`), as bash allows.
while read -r line; do
  case $line in data:*) echo "${line#data:}" ;; esac
done < "$0"
cat "$0" | grep -c '^data:'
exit 0
data:one
data:two
