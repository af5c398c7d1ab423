# `type` names keywords; `-p` prints a path only when a file is what
# would run; `-P` of a name nowhere fails quietly; `command -p` runs the
# command as without it.
type -t for; type -a if; type while
type -t '[['
type -p echo; echo "p $?"
type -P guardsh_nosuch_zz; echo "P $?"
command -p echo via-p
command -p printf '%s\n' x
