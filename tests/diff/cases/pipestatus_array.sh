true | false | true
echo "${PIPESTATUS[@]}" ${#PIPESTATUS[@]} "${PIPESTATUS[1]}"
