shopt -s nullglob; echo start *.none end
