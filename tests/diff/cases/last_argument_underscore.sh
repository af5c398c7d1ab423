echo a b c
echo "$_"
true xyz
echo "$_"
