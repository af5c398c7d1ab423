x=$(false); echo $?; x=$(true); echo $?
