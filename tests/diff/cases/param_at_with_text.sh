set -- x y; for w in "pre$@post"; do echo "[$w]"; done
