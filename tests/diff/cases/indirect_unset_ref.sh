echo "${!unset_ref}"
echo not reached
