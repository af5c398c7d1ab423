[[ x =~ a|x ]] && echo alt; [[ foo123 =~ ^foo([0-9]+)$ ]] && echo group; [[ ab =~ (a)(b) ]] && echo two
