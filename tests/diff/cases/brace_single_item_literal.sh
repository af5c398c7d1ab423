echo {a} {} x{,}y
