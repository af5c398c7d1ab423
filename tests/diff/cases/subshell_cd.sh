mkdir sub; (cd sub; pwd | sed_free=1 cat >/dev/null); echo ${PWD##*/} >/dev/null; (cd sub && echo ok)
