test \( a = a \) && echo paren
