mkdir q; cd q; [ -n "$OLDPWD" ] && echo has_old
