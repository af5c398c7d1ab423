echo gone > /dev/null; echo kept
