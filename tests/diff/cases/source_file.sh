echo "sv=sourced; echo in source \$1" > s.sh; . ./s.sh arg; echo $sv
