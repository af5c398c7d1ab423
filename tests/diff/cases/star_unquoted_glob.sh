touch s1 s2; set -- "s*"; echo $*
