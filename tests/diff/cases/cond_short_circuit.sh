x=0; [[ a == b && $(( x = 1 )) ]]; echo x=$x; [[ a == a || $(( x = 2 )) ]]; echo x=$x
