# A name declared without a value is unset to every expansion and test,
# keeps its attributes, and `declare -p` names it without a value.
export e
echo "[${e-unset}]"
declare -p e
declare x
declare -p x
echo "${x-u} ${#x} ${#x[@]} [${x[0]-u}] [${!x[@]}]"
[[ -v x ]]; echo "-v $?"
x[1]=a
declare -p x
readonly r
echo "${r-u}"
declare -p r
declare -i n
echo "${n-u}"
n=3+4
echo "$n"
declare xa
echo "${!xa*}"
y=
declare y
echo "[${y-u}]"
f() { local x; echo "${x-u}"; declare -p x; }
x=1
f
echo "$x"
set | grep -c '^e='
export e
cat /proc/self/environ | tr '\0' '\n' | grep -c '^e='
e=1
cat /proc/self/environ | tr '\0' '\n' | grep '^e='
unset e
declare -p e
