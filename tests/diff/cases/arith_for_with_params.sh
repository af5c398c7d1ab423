n=3; for ((i=1; i<=n; i++)); do s=$((s+i)); done; echo $s
