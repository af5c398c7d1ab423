[[ foo123 =~ ^foo[0-9]+$ ]] && echo match; [[ bar =~ ^foo ]] || echo nomatch
