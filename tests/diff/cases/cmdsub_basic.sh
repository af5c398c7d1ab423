echo "got $(echo inner)"
