e=; set -- $e; echo $#; set -- "$e"; echo $#
