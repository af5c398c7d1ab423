echo "script $0 $1 $#"
