cmds=(echo hello)
"${cmds[@]}"
${cmds[0]} direct
