x='a\tb\nc'
printf "%s|" "${x@E}"; echo
