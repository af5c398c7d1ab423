# A group, if, a loop, case or a function definition run as a pipeline of
# their own leave PIPESTATUS as the last pipeline inside them set it; a
# subshell, [[ ]], (( )) and a simple command set it to their status.
{ false | true; }; echo "group: ${PIPESTATUS[*]}"
if true; then false | true | true; fi; echo "if: ${PIPESTATUS[*]}"
for i in 1; do true | false; done; echo "for: ${PIPESTATUS[*]}"
false | true; for i in; do :; done; echo "empty for: ${PIPESTATUS[*]}"
false | true; while false; do :; done; echo "while: ${PIPESTATUS[*]}"
false | true; case x in y) ;; esac; echo "case: ${PIPESTATUS[*]}"
case x in x) false | true ;; esac; echo "case arm: ${PIPESTATUS[*]}"
false | true; f() { :; }; echo "definition: ${PIPESTATUS[*]}"
false | true; f; echo "call: ${PIPESTATUS[*]}"
false | true; ( false | true ); echo "subshell: ${PIPESTATUS[*]}"
false | true; [[ x ]]; echo "cond: ${PIPESTATUS[*]}"
false | true; (( 0 )); echo "arith: ${PIPESTATUS[*]}"
false | true; x=1; echo "assignment: ${PIPESTATUS[*]}"
false | true; for ((i = 0; i < 0; i++)); do :; done; echo "arith for: ${PIPESTATUS[*]}"
false | true; { :; } | cat; echo "piped group: ${PIPESTATUS[*]}"
