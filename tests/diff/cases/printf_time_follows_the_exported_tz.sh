# printf %(…)T formats in the TZ the shell exports; one it only sets is
# not seen, and unsetting it goes back to the system's zone.
t=1557978599
export TZ=Asia/Tokyo; printf '%(%Y-%m-%d %H)T\n' $t
export TZ=US/Eastern; printf '%(%Y-%m-%d %H)T\n' $t
TZ=UTC; printf '%(%H)T\n' $t
declare +x TZ; TZ=Asia/Tokyo; a=$(printf '%(%H)T' $t); unset TZ; b=$(printf '%(%H)T' $t)
test "$a" = "$b" && echo same zone
# bash formats into 128 bytes: a longer result prints nothing.
printf "%($(printf '%%Y%.0s' {1..31}))T" $t | wc -c
printf "%($(printf '%%Y%.0s' {1..32}))T" $t | wc -c
