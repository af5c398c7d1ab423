x=1; e=; echo "[${x+alt}]" "[${e+alt}]" "[${e:+alt}]" "[${nope+alt}]"
