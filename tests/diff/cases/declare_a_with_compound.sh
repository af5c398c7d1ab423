declare -a list=(1 2 3)
local_test() { declare -a inner=(a b); echo ${#inner[@]}; }
local_test
echo ${#list[@]} "[${inner[@]}]"
