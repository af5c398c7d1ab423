declare v="a b"; declare -p v
