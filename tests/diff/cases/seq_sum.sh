s=0; for i in $(seq 1 100); do s=$((s+i)); done; echo $s
