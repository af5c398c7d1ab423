{ echo a; echo b; } > f; wc -l < f
