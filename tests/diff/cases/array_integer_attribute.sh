declare -ai n=(1+1 "2*3")
n+=(4+4)
declare -p n
n[5]="10/2"
echo "${n[5]}"
