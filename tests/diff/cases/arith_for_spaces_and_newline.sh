for (( i = 10 ; i > 0 ; i -= 4 ))
do
  echo $i
done
