echo ${0##*/}
