# Inside double quotes a value word's single quotes are characters, but a
# `}` between two of them does not end it; a replacement's quotes are
# removed (bash 5.2).
foo='a b c d'
echo "${x-'}'}" "${x-'a'}" "${x-a'b\c'}" "${x-a'$foo'}" "${foo+'x}y'}"
echo "${foo//'c d'/'z\z'}" "${foo//c/\z}" "${foo//c/\\}" "${foo//c/'x'y\'}" "${foo//c/"q"}"
cat <<EOF
${x-'}'} ${foo/a/'A'}
EOF
