! false; echo $?; ! true; echo $?
