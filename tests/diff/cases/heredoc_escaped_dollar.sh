cat <<EOF
\$HOME stays
EOF
