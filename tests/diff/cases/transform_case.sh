x="hello World"
echo "${x@U}" "${x@L}" "${x@u}"
