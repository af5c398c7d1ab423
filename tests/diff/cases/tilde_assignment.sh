HOME=/h; x=~/a; echo $x
