set -- ab ac ad; echo "${@#a}"
