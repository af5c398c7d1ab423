cat <(echo from_procsub)
