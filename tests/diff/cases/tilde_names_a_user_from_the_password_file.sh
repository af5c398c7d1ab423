echo ~root ~root/x "~root" ~root"/y"
unset HOME; echo ~ | grep -c /
