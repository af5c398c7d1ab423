a=(file.txt notes.md x.txt)
echo "${a[@]%.txt}" "|" "${a[@]#*.}" "|" "${a[@]##*e}"
