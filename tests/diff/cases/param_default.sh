unset u; echo ${u-d1} ${u:-d2}; e=; echo "${e-d3}" "${e:-d4}"
