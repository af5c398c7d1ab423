(( $(echo 3) * 2 == 6 )) && echo six
