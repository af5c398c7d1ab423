cat <<< "here string"; x=3; cat <<< $x
