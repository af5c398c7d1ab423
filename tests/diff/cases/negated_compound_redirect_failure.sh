# A compound command whose own redirection fails is 1 with or without a
# `!` before it (bash leaves the negation out); a simple command's is
# negated; `set -e` does not end the shell under `!`.
! cat < missing; echo "simple $?"
! { cat; } < missing; echo "group $?"
! ( cat ) < missing; echo "subshell $?"
! while false; do :; done < missing; echo "loop $?"
! if true; then :; fi < missing; echo "if $?"
! [[ a == b ]] < missing; echo "cond $?"
! { :; }; echo "ran $?"
set -e
! { :; } < missing
echo "reached $?"
