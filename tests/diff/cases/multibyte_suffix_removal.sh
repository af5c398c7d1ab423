v="héllo"
echo "${v%?}" "${v#?}" "${#v}"
