[ -n "$HOSTNAME" ] && echo has-hostname
