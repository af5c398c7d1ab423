mkdir -p a; HOME=$PWD; pushd a >/dev/null; dirs -v; dirs -p; dirs -l | wc -w; dirs +1; dirs -0; dirs +5; echo $?
