echo 'a  $x  \n'
