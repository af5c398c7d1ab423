for i in 1 2 3; do
  ( [ $i = 2 ] && continue; echo in-$i )
  echo out-$i
done
