read -ra words <<< "  one two   three "
declare -p words
IFS=, read -ra csv <<< "a,b,,c"
declare -p csv
