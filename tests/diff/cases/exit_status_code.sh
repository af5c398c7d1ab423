echo a; exit 5; echo never
