shopt -s nullglob; shopt -p nullglob; shopt -u nullglob; shopt -p nullglob
