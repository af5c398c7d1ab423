a=(1 "2 3")
ref="a[@]"
printf "<%s>" "${!ref}"; echo
ref="a[1]"
echo "${!ref}"
