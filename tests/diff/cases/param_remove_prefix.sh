p=/usr/local/bin/tool; echo ${p#*/} ${p##*/}
