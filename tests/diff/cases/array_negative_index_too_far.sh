a=(1 2)
echo "[${a[-5]}]"
echo after $?
