a=(apple banana cherry)
echo "${a[@]/a/A}" "|" "${a[@]//a/_}" "|" "${a[@]/#b/B}" "|" "${a[@]/%y/Y}"
