# In a UTF-8 locale IFS is a set of characters: a multibyte one splits
# where the whole character stands, a stray byte only a stray byte; in
# the C locale each byte splits.
export LC_ALL=C.UTF-8
x=çxçéy IFS=ç
printf '<%s>' $x; echo
IFS=$'\xc3'; printf '<%s>' $x; echo
y=$'a\xc3b\xc3'; printf '<%s>' $y; echo
IFS=" ç"; z=" aç çb  c"; printf '<%s>' $z; echo
LC_ALL=C; IFS=ç; printf '<%s>' $x | od -c | head -2
