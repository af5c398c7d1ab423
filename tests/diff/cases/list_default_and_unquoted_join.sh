# ${@-w} and ${a[@]:+w}: a list with no elements is unset; with `:` it is
# null when its elements joined are empty (by IFS's first byte for a
# quoted *, else by a space). Unquoted, a list is joined by IFS's first
# byte and split again, so with a separator that is not a blank an empty
# element before another is a field.
show() { printf '<%s>' "$@"; echo; }
for setup in 'set --' 'set -- ""' 'set -- "" ""' 'set -- a' 'set -- "" ""; IFS=' 'set -- ""; IFS=' 'a=("" ""); IFS=' 'a=("" ""); IFS=:' 'a=(""); IFS='; do
  unset a IFS
  eval "$setup"
  echo "$setup: [${@-m}] [${@+p}] [${@:-m}] [${@:+p}] [${*-m}] [${*+p}] [${*:-m}] [${*:+p}]"
  show ${@-m} ${*:-m} ${@:+p} "${@-m}" "${*-m}" ${a[@]-m} ${a[*]:-e} "${a[@]:-e}" ${a[*]:+p} "${a[*]:-e}"
done
unset IFS
a=("" ""); IFS=:; show ${a[@]}; show ${a[*]}
a=("" x ""); show ${a[@]}; IFS=" "; show ${a[@]}
IFS=x; set -- "" ""; show $@; set -- "" a; show $*
IFS=; a=("" x ""); show ${a[@]} ${a[*]} x${a[@]}y
unset IFS; a=("a b" "" c); show ${a[@]} x${a[@]}y ${a[@]:-q}
