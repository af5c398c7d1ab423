cat <<EOF
body line
$((1+1))
