declare -i n=1
declare -r r=2
declare -a a=(1)
declare -A m
export e=3
echo "${n@a}" "${r@a}" "${a@a}" "${m@a}" "${e@a}" "[${plain@a}]"
