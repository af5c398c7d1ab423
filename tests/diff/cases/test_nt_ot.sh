touch -d "2000-01-01" old; touch new; [ new -nt old ] && echo newer; [ old -ot new ] && echo older
