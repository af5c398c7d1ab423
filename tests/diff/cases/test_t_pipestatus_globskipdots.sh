# test -t of a word that is no descriptor number is false, not an error;
# PIPESTATUS is empty before any pipeline; shopt -u globskipdots lets a
# pattern with a leading dot match . and ..
test -t 12345678910; echo "t: $?"
[ -t invalid ]; echo "t: $?"
echo "[${PIPESTATUS[@]}]" ${#PIPESTATUS[@]}
true | false; echo "${PIPESTATUS[@]}"
mkdir d && cd d && : > .hidden && : > x
shopt globskipdots
echo .*
shopt -u globskipdots; shopt globskipdots
echo .* .h*
shopt -s globskipdots
echo .*
