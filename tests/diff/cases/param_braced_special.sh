set -- q; echo ${#} ${?} ${1}
