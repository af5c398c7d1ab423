echo data > f; exec 3< f; cat <&3; exec 3<&-
