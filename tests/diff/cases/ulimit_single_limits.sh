ulimit -n; ulimit -Hn; ulimit -s; ulimit -c
ulimit
ulimit -H
ulimit -f -n
ulimit -p
