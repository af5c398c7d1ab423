x=":a"; IFS=:; set -- $x; echo $#
