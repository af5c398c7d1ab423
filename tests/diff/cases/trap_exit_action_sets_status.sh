trap 'exit 5' EXIT; exit 1
