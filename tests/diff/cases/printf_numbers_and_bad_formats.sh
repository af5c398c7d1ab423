# printf reads integers as C's strtoimax/strtoumax: leading blanks are
# fine, text after the number fails (the value read is printed), a value
# out of range is clamped with a warning and status 0; %u/%x/%o take
# negative numbers modulo 2^64. A format that ends inside a conversion
# is an error; # keeps the decimal point; %c prints the first byte.
printf '%d\n' ' -42'; echo "status=$?"
printf '%d\n' ' -42 '; echo "status=$?"
printf '%d\n' '-42z'; echo "status=$?"
printf '%d\n' 18446744073709551616; echo "status=$?"
printf '%d\n' -9223372036854775809; echo "status=$?"
printf '%x %u\n' 18446744073709551615 -1; echo "status=$?"
printf '%u %u\n' -18446744073709551615 -18446744073709551616; echo "status=$?"
printf '%d|%d|%o|%x\n' 010 0x1f 8 -1; echo "status=$?"
printf '%d %d %d\n' "'A" '"B' ' 7'; echo "status=$?"
printf '%z'; echo "status=$?"
printf 'a%5'; echo "status=$?"
printf 'x%'; echo "status=$?"
printf '%y'; echo "status=$?"
printf '[%#.0f][%#g][%#.0e]\n' 3 3 3
printf '%c|%c\n' hello 'μ' | cat -v
