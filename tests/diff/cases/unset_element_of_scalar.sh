x=hello
unset "x[0]"
echo "[${x-unset}]"
