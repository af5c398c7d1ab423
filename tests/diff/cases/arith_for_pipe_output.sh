for ((i=3;i>0;i--)); do echo $i; done | sort
