x="it's a \"test\""
echo "${x@Q}"
y=""
echo "${y@Q}"
z=$'a\nb'
echo "${z@Q}"
