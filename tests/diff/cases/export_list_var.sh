export E1=v; export -p | grep -c E1=
