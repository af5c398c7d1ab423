echo -e "x\ny" "\0101" "\x42"
