v=1; [[ -v v ]] && echo set; [[ -v nope ]] || echo unset; e=; [[ -v e ]] && echo empty-is-set
