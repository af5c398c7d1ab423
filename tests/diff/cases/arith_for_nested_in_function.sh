grid() { for ((r=0;r<$1;r++)); do for ((c=0;c<$1;c++)); do echo -n "$r$c "; done; done; echo; }
grid 2
