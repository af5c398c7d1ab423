echo hi | { read; echo $REPLY; }
