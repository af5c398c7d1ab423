trap "echo exiting" 0
trap "echo int" 2
trap -p | sort
