mkdir -p a c; HOME=$PWD; pushd a; pushd ../c; dirs; popd; popd; popd; echo $?
