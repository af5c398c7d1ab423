ls /nonexistent_zz > f 2>&1; wc -l < f
