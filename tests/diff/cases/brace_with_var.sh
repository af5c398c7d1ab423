v=X; echo {a,$v}
