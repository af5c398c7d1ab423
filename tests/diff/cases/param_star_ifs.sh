set -- a b c; IFS=,; echo "$*"
