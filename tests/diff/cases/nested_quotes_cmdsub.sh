echo "$(echo "inner \"q\"")"
