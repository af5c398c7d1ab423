IFS=:; x=$(echo "a:b"); set -- $x; echo $#
