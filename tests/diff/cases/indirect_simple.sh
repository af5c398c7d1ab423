target=value
ref=target
echo "${!ref}"
