echo a &> f; { echo b >&2; } &>> f; cat f
