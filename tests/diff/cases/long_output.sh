for i in $(seq 1 2000); do echo line$i; done | tail -1
