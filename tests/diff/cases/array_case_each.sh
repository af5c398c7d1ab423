a=(one Two tHree)
echo "${a[@]^}" "${a[@]^^}" "${a[@],,}" "${a[@],}"
