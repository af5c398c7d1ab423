echo $OSTYPE; OSTYPE=mine; echo $OSTYPE
