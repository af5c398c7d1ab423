echo {a,b{1,2}}x
