x=0; echo a | while read l; do x=1; done; echo $x
