set -- a b c; echo $#; shift; echo $1; shift 2; echo $#
