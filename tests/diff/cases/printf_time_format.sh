TZ=UTC printf "%(%Y-%m-%d %H:%M:%S)T|\n" 86400; printf "[%10(%Y)T]\n" 0; printf "%(%s)T\n" 1234567890
