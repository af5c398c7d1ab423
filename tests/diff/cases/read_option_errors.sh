# read's option errors read nothing: the input is left for the next reader.
printf 'one\ntwo\n' | {
    read -n abc v; echo "bad count: $?"
    read -n -1 v; echo "negative count: $?"
    read -t soon v; echo "bad timeout: $?"
    read -n ""; echo "empty count: $?"
    read -r first; echo "then: $first"
    read -n " 2" second; echo "spaced count: $? $second"
}
