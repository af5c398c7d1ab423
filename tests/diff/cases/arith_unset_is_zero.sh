unset z; echo $((z+1))
