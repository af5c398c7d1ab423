# Outside a UTF-8 locale a pattern's ? and a substring count bytes; in
# one (LC_ALL, LC_CTYPE or LANG naming UTF-8) characters. printf's
# widths count bytes in both; read -n counts characters in UTF-8.
x=héllo
echo "${#x} ${x:1:2}" | cat -v
case é in ?) echo one ;; *) echo many ;; esac
[[ é == ?? ]] && echo two
echo "${x/h?/X}" | cat -v
read -n 2 y <<< "$x"; echo "$y" | cat -v
LC_ALL=C.UTF-8
echo "${#x} ${x:1:2}"
case é in ?) echo one ;; *) echo many ;; esac
[[ é == ? ]] && echo one
echo "${x/h?/X}"
read -n 2 y <<< "$x"; echo "$y"
read -N 3 y <<< "aéb"; echo "$y"
printf '[%3s][%-4s][%.1s]\n' é é ab
read -n 0 z <<< "abc"; echo "[$z]"
