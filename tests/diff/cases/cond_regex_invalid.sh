re="("; [[ a =~ $re ]]; echo "status $?"
