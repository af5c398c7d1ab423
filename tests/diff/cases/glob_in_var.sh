touch m1 m2; p="m*"; echo $p; echo "$p"
