cd /
cd /tmp
cat /proc/self/environ | tr "\0" "\n" | grep -E "^(PWD|OLDPWD)=" | sort
