# "${a[@]+word}" of an array without elements is no field at all; a list
# reached through ${!ref} is tested for being unset only (`:-` as `-`).
e=(); a1=(''); set --
printf '<%s>' "${e[@]+plus}" "${e[@]:+p}" "${a1[@]+plus}" "${@+x}" "${@:+x}" "${u[@]+y}" "x${e[@]+p}"; echo
set -- ''
printf '<%s>' "${@+x}" "${@:+x}"; echo
t() {
  ref='a[@]'; echo "a[@]: '${!ref-no-colon}' '${!ref:-with-colon}' '${!ref:+plus}'"
  ref='a[*]'; echo "a[*]: '${!ref-no-colon}' '${!ref:-with-colon}' '${!ref:+plus}'"
}
a=(); t
a=(""); t
a=("" ""); t
IFS=; t
