a=b; b=7; echo $((a+1))
