x=V; cat <<EOF
value $x
$(echo sub) $((1+1))
EOF
