x=a/b/c
echo "${x////c}" "${x//\//:}"
