TIMEFORMAT=""; time echo quiet
