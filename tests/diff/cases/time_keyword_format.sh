TIMEFORMAT="took"; time true; echo $?; time false; echo $?
