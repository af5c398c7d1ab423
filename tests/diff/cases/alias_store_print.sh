alias ll="ls -l"; alias ll; unalias ll; alias ll 2>/dev/null; echo "st $?"
