# set -u leaves ${name[@]} and ${name[*]} of an unset name empty (bash
# 5.2); unset of an element before the first is an error, status 1.
a=(1 2 3)
unset 'a[-2]'; echo "$? ${a[*]}"
unset 'a[-5]'; echo "$? ${a[*]}"
unset 'a[7]'; echo "$? ${a[*]}"
set -u
b=()
echo "[${b[@]}]"
echo "[${undefined[@]}]"
echo "[${undefined[*]}]"
echo "[${undefined[0]-default}]"
echo "${undefined}"
echo not reached
