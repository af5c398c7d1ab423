mkdir -p a c; HOME=$PWD; pushd a >/dev/null; pushd ../c >/dev/null; pushd >/dev/null; basename "$PWD"; pushd +1; pushd -0; popd +1; dirs
