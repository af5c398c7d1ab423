inner() { echo "${FUNCNAME[@]}" "${#FUNCNAME[@]}" "${FUNCNAME[1]}"; }
outer() { inner; }
outer
echo "[${FUNCNAME[@]}]"
