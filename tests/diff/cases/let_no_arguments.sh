let; echo $?
