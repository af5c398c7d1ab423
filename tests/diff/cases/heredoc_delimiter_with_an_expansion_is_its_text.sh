# A here-document delimiter is never expanded: one holding `${…}` or
# `$(…)` is the word's text with its quotes removed, as in bash.
cat <<${a}
here
${a}
cat <<$(a)
there
$(a)
cat <<"$b"x
$HOME stays
$bx
cat <<$c
body $((1 + 2))
$c
