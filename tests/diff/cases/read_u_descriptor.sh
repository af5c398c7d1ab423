echo three > f3; exec 4< f3; read -u 4 v; echo "[$v]"; read -u4 w; echo "status $?"
