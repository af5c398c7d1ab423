f=abc; echo ${f#x} ${f%y}
