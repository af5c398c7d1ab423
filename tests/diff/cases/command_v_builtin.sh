command -v echo; command -v cd
