IFS=:; set -- a b c; s=$*; echo "$s"; t=$@; echo "$t"
