eval -- echo hi; eval -- "x=5"; echo $x
