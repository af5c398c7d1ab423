read -q; echo $?; read -n; echo $?; read -u x; echo $?
