set -u
a=()
echo "[${a[@]}]" ${#a[@]}
echo ok
