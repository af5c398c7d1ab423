f() { local -A m=([k]=inner); echo "${m[k]}"; }
f
echo "[${m[k]}]"
