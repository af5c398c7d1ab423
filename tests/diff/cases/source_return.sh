printf "echo a\nreturn 3\necho b\n" > r.sh; source ./r.sh; echo "st $?"
