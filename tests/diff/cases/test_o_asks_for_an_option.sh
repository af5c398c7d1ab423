# test -o NAME (and [ -o NAME ]) says whether a set -o option is on; an
# unknown name is off; with three words -o is the binary or.
test -o nounset; echo "nounset off: $?"
set -o nounset
test -o nounset; echo "nounset on: $?"
[ -o nounset ]; echo "bracket: $?"
test ! -o nounset; echo "three words, -o the binary or: $?"
set +o nounset
test -o _bad_name_; echo "unknown: $?"
test -o; echo "alone: $?"
test a -o ''; echo "binary or: $?"
