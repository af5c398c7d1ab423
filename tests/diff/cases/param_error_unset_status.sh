( echo ${nope?gone} ); echo "status $?"
