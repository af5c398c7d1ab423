TIMEFORMAT="[%%]"; time echo hi | cat; time { echo in; }; time ! false; echo $?
