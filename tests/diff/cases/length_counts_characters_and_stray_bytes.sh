# ${#s} in a UTF-8 locale counts characters, and each byte that is part
# of no character as one; a locale that is not installed is C (bytes).
LC_ALL=C.UTF-8
s=$'z \u03bc \xe4\xb8'; echo ${#s}
s=$'\xff\xce\xbc\xce'; echo ${#s}
s=$'a\xf0\x9f\x98'; echo ${#s}
s=$'\u03bc'
LC_ALL=C
echo ${#s}
unset LC_ALL; LANG=C.UTF-8
echo ${#s}
LANG=C; { LANG=xx_XX.UTF-8; } 2>/dev/null
echo ${#s}
