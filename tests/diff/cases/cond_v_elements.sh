a=([2]=x)
[[ -v a ]] && echo a-set || echo a-unset
[[ -v a[2] ]] && echo 2-set
[[ -v a[@] ]] && echo any-set
