# $'\cX' masks X's upper case to five bits (\c? is DEL); $"…" reads as "…";
# printf %q, declare -p, set and @K write control characters with bash's
# escapes and bytes that are part of no character in octal.
v=$'\c0\c9-\ca\cz\cA\cZ\c-\c+\c"\c?\c\\x'
printf '%q\n' "$v"
printf '%q\n' $'\a\b\e\f\v\x7f\x01' $'\376\377a b' ''
s3=$'\037' s4=$'\376\377' s5=$'a\tb' s6='a"b$`'
declare -p s3 s4 s5 s6
a=($'\376' $'\037' x)
declare -p a
declare -A A=([$'\037']=$'\376')
declare -p A
echo "${a[@]@K}" "${A[@]@K}"
x=x
echo $"foo" $"foo $x" "${y:-$"a b"}"
