export XV=exported; XQ=notexported; printf "%s\n" "$XV"
