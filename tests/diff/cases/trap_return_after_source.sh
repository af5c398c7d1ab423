echo "echo sourced" > s.sh; trap "echo ret" RETURN; f() { :; }; f; . ./s.sh; echo end
