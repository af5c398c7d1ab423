r=nothing
echo "[${!r}]" "[${!r-default}]"
