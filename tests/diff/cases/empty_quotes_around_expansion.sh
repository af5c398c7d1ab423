A="x y"
set -- ""$A""
echo $#
set -- ""''"$A"
echo $#
