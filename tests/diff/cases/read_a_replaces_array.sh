w=(old values here)
read -ra w <<< "new"
declare -p w
