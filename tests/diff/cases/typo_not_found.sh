# A name that is no command anywhere fails that command only (127), as in
# bash; the rest of the line and of the script runs.
guardsh_no_such_cmd_xq hi
echo "after $?"
guardsh_no_such_cmd_xq | cat; echo "pipe $?"
if guardsh_no_such_cmd_xq; then echo yes; else echo "else $?"; fi
x=guardsh_no_such_cmd_xq; $x arg; echo "dynamic $?"
guardsh_no_such_cmd_xq > created.txt; ls created.txt
command guardsh_no_such_cmd_xq; echo "command $?"
guardsh_no_such_cmd_xq || echo "or $?"
