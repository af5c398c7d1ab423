sleep 0.1 & wait; echo waited
