ulimit -a
