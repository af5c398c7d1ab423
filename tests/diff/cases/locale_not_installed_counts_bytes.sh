# A locale that is not installed leaves a shell that starts in the C locale
# counting bytes, though its name says UTF-8; an installed one (C.UTF-8,
# or the same under its normalised codeset, C.utf8) counts characters.
# (bash warns that it cannot change the locale; guard-sh does not.)
x=héllo
{ LC_ALL=xx_YY.UTF-8; } 2>/dev/null
echo "${#x}"
case é in ?) echo one ;; *) echo many ;; esac
{ LANG=xx_YY.utf8 LC_ALL=; } 2>/dev/null
echo "${#x}"
LC_ALL=C.utf8
echo "${#x}"
