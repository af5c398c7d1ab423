f() { echo "in $FUNCNAME"; g; echo "back in $FUNCNAME"; }; g() { echo "in $FUNCNAME"; }; f; echo "[$FUNCNAME]"
