x=abcabc; echo ${x/#abc/S} ${x/%abc/E}
