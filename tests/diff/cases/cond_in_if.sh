n=x; if [[ $n == x ]]; then echo yes; else echo no; fi; if [[ $n == y ]]; then echo yes; else echo no; fi
