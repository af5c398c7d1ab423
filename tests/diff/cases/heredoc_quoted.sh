x=V; cat <<'EOF'
value $x $(echo no)
EOF
