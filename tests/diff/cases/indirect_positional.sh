set -- first second third
n=2
echo "${!n}" "${!#}"
