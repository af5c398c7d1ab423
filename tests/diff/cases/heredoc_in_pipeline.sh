cat <<EOF | sort
b
a
EOF
