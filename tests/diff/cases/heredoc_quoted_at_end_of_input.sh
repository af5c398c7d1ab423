cat <<'EOF'
$HOME stays
