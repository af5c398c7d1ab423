mkdir -p a; pushd a >/dev/null; pushd nope; echo $?; dirs -c; pushd; echo $?; pushd /nonexistent; echo $?
