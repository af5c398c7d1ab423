true | false; echo $?; false | true; echo $?
