echo time; x=time; echo $x; echo a time b
