echo $SECONDS; [ "$SECONDS" -lt 5 ] && echo small
