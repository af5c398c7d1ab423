set -- one two three four five six seven eight nine ten; echo $1 $3 ${10} $#
