read -ra w <<< ""
declare -p w
echo ${#w[@]}
