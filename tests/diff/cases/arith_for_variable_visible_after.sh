for ((k=0;k<3;k++)); do :; done; echo k=$k
