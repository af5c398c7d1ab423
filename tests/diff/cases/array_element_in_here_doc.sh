a=(x y)
cat <<EOF
first ${a[0]} all ${a[@]} count ${#a[@]}
EOF
