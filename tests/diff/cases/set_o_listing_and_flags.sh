# `set -o` and `set +o` list every option by name, as bash does, and `$-`
# holds the letters of a script's shell.
set -o
set +o
echo "$-"
set -eu; echo "$-"; set +eu
