x=1; e=; test -v x && echo set; test -v e && echo empty-set; test -v nope || echo unset; [ -v x ] && echo bracket; [ ! -v nope ] && echo negated
