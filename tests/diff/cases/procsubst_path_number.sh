echo <(true); cat < <(echo redirected)
