# return outside a function or sourced script is a usage error (status 2);
# eval takes no option but --, and an unknown one is a usage error too.
return; echo "return: $?"
eval -z 'echo no'; echo "eval: $?"
eval -- 'echo after --'
eval - 2>/dev/null; echo "dash as a command: $?"
bash --rcfile /dev/null -c 'echo rcfile skipped'
