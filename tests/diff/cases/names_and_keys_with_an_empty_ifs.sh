# Unquoted ${!prefix*} and ${!a[*]} with IFS='' are one field: bash joins
# the names by nothing and the keys by a space; ${!…@} stays a list.
p_1=1; p_2=2; a=(x y z); b=()
IFS=''
printf '<%s>' ${!p_*}; echo
printf '<%s>' ${!a[*]}; echo
printf '<%s>' ${!p_@} ${!a[@]} "${!p_*}"; echo
printf '<%s>' ${!b[*]} ${!zz_*} end; echo
IFS=:
printf '<%s>' ${!p_*} "${!a[*]}"; echo
