declare -A m=([k]=v [with space]="a \"quoted\" value" [x]='$y')
declare -p m
