case ab in a*) echo first;;& *b) echo second;;& *) echo third;; esac
