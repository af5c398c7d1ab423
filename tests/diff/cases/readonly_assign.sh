readonly ro=1; echo $ro
