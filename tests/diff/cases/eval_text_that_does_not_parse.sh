# differs_from_bash: stderr (guard-sh words its syntax errors its own way)
# eval and trap text that does not parse: a syntax error, status 2, and
# the script goes on (inside eval even an error in [[ ]] sets 2).
eval "echo >"; echo "eval: $?"
false; eval "[[ a b ]]"; echo "cond in eval: $?"
eval "echo '"; echo "quote: $?"
trap "echo >" EXIT
echo end
