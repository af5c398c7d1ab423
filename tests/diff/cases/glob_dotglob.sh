touch .dot plain; shopt -s dotglob; echo *
