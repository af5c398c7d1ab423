HOME=/tmp/home; echo ~ ~/x "~" ~nosuchuser_zz
