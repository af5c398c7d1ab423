f() { cat <<EOF
in $1
EOF
}; f arg
