x=1; unset x; echo "[${x-unset}]"
