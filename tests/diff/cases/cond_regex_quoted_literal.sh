[[ a.b =~ "a.b" ]] && echo literal-dot; [[ axb =~ "a.b" ]] || echo no-any-char; [[ axb =~ a.b ]] && echo any-char
