i=a; while [[ $i != aaaa ]]; do i=${i}a; done; echo $i
