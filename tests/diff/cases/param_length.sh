x=hello; echo ${#x}; e=; echo ${#e}; set -- a b c; echo ${#}
