n=1; let n++ n++; echo $n; let --n; echo $n
