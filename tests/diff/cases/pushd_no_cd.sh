mkdir -p a; HOME=$PWD; pushd -n a; dirs; popd -n; [ "$PWD" = "$HOME" ] && echo stayed
