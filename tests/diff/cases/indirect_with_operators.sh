v=hello
r=v
echo "${!r^^}" "${!r:1:3}" "${!r/l/L}" "${!r%lo}"
