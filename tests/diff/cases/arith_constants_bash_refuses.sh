# Constants bash refuses, with its words: a base written with a leading
# 0 is an invalid number, a base outside 2..64 an invalid base, a digit
# past the base too great; the message shows the text up to the constant.
for e in '02#0110' '0#1' '010#12' '1#1' '65#1' '2#12' '0x1X' '09' '1 + 09 + 2' '10#012' '64#@_'; do
  ( echo "$e = $(( $e ))" ); echo "status $?"
done
