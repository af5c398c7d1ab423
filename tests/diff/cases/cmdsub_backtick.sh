echo `echo back`
