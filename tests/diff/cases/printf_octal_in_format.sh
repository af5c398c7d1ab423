# In a format, \NNN counts its leading 0 among the three digits; %b and
# echo -e read \0NNN.
for f in '\0377' '\377' '\x1f7' '\044e' '\08' '\1234'; do
    printf "$f" | cut -b1-4 | tr '\037\377\123' 'abc'
    echo
done
printf '%b|' '\0377' '\0101' '\101'; echo
echo -e '\0101\101' | tr -d '\n'; echo
