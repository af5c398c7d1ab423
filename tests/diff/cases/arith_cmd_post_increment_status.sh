i=0; (( i++ )); echo "$? $i"; (( i++ )); echo "$? $i"; (( ++j )); echo "$? $j"
