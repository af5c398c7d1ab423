(trap "echo sub" EXIT; echo in); echo out; echo "$(trap "echo cs" EXIT; echo body)"
