# `set -e` is ignored inside `! …` only when it was on as the pipeline
# started; one run inside it acts there (bash's behaviour).
f() { false; echo "f went on"; }
set -e
! f; echo "negated with -e on"
! { false; echo "group went on"; }; echo "after group"
set +e
g() { set -e; false; echo "g went on"; }
(! g; echo "not reached"); echo "subshell status $?"
(if g; then :; fi; echo "if: g went on"); echo "status $?"
(! { set -e; false; echo no; }; echo no); echo "group status $?"
